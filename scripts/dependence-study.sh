#!/bin/bash
# usage: scripts/dependence-study.sh [REPS] [SIGMA...]  (from the repository root)
# Prints the simulation study of the perf gate's dependence-aware method (stats/blockmedians.go):
# for every scenario (i.i.d., AR(1) φ = 0.2/0.4/0.6, linear drift, level shift, heavy tails,
# and noise block-resampled from the real series in stats/testdata/ratios), the battery's breach
# rate and, for each method where the battery breaches and over the whole gate, the one-sided
# coverage of both bounds, FAIL and PASS at a true ratio of 1.00, FAIL at the threshold 1.05 (the
# level) and at 1.10 and 1.15 (power). Methods: the block medians (the method), the protocol's
# literal INCONCLUSIVE, the plain order statistics, the circular moving-block bootstrap with the
# Politis–White block length, and the self-normalized sign test. SIGMA is the sd of ln r of the
# synthetic noise (default 0.03; coverage does not depend on it, power does). The test fails if
# the method loses its level in a dependent scenario. REPS=4000 takes about a minute per SIGMA
# on two cores.
REPS=${1:-4000}; shift
SIGMAS=${*:-0.03}
for s in $SIGMAS; do
  KVPARITY_STUDY_REPS=$REPS KVPARITY_STUDY_SIGMA=$s go test ./stats -run '^TestDependenceStudy$' -count=1 -v |
    sed -n 's/^        //p' | grep -v '^dependence_study_test.go' || exit 1
  echo
done
