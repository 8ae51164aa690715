// Package stats holds the statistics of the paired performance gate (protocol stage 7; the
// method for people is docs/guide.md's "The dependence-aware method"). It imports only the standard
// library and, like golang.org/x/perf, keeps small documented value types, reports warnings as data
// and keeps formatting (benchfmt.go) apart from the maths. Other packages call Analyze,
// RunBattery, BalancedSchedule and WriteBench and read the value types they return; the pieces
// in lower case below are the package's own.
//
//   - binomialHalfCDF: exact P(Bin(n, ½) ≤ k) as a rational (P(Bin(60,½) ≤ 23) =
//     26650063354005107 / 2^59 = 0.046230…); binomialCDF for operating characteristics.
//   - ordersForMedian: the order statistics bounding the median for any n and one-sided
//     confidence (n = 60 at 95%: X(24) and X(37), coverage 0.953770 each).
//   - gateBounds: the verdict against a threshold: PASS when the upper bound ≤ T, FAIL when
//     the lower bound > T, INCONCLUSIVE otherwise, cross-checked by counting K = #{r ≤ T}.
//   - RunBattery: the predeclared dependence battery on ln r in execution order, each test at
//     α = 0.01 with its statistic, acceptance region and outcome: lag-1 autocorrelation,
//     Ljung–Box Q(5), Mann–Kendall trend, the exact runs test and the baseline-first vs
//     candidate-first rank-sum test; plus the Theil–Sen drift across the session.
//   - blockMedianBounds: the predeclared dependence-aware method (row key [perf]
//     dependence_method = "block-medians"): the exact order-statistic bounds of the medians of
//     odd-length blocks with the Politis–White data-driven length, applied only when the
//     battery breaches through serial dependence; why this method, with references, is in
//     blockmedians.go, and the simulation study that chose it in dependence_study_test.go.
//   - pairedBootstrap: the seeded bootstrap of log ratios, a secondary diagnostic only.
//   - BalancedSchedule: permuted blocks of four (two BC, two CB), PCG with the spec's stream and
//     a modulo-rejection draw, pinned by the spec's seed-1 test vector.
//   - Analyze: all of the above on one series; a breach of the battery means the bounds are
//     not applied: the verdict is INCONCLUSIVE with the reason, or, when the config predeclares
//     the block-median method and only serial-dependence tests breached, that method's verdict
//     (Analysis.DecidedBy says which rule decided).
//   - WriteBench: Go benchmark format that benchstat reads; a test checks that benchstat at
//     -confidence 0.90 reports the same order-statistic interval of the median as ours.
package stats
