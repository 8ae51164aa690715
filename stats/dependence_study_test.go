package stats

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The simulation study behind the dependence-aware method (blockmedians.go): one-sided 95%
// coverage of each bound of the median ratio, the false-FAIL rate at a true ratio of 1.00, the
// level at the threshold (a true ratio of 1.05 = T, the worst case for a false FAIL) and the
// power at 1.10 and 1.15, under i.i.d. noise, AR(1), a linear drift, a level shift, heavy tails
// and noise block-resampled from a real campaign's ratio series. `-short` runs a reduced form
// and asserts the level; scripts/dependence-study.sh runs it with KVPARITY_STUDY_REPS set and
// prints the table, with the moving-block bootstrap and block-median comparators.

// studyN is the protocol's pair count; studyThreshold the gate's default threshold.
const (
	studyN         = 60
	studyThreshold = 1.05
)

// studyRatios are the true median ratios of the table: A/A, the threshold, two slowdowns.
var studyRatios = []float64{1.00, 1.05, 1.10, 1.15}

// A studyScenario draws noise e with median 0 in ln r units, in execution order.
type studyScenario struct {
	name      string
	dependent bool // the method must hold its level here (it is applied when the battery breaches)
	draw      func(rng *rand.Rand, sigma float64, e []float64)
}

func ar1(phi float64, innov func(*rand.Rand) float64) func(*rand.Rand, float64, []float64) {
	return func(rng *rand.Rand, sigma float64, e []float64) {
		x := innov(rng) // stationary start: Var = 1 when innov has unit variance
		s := math.Sqrt(1 - phi*phi)
		for i := range e {
			if i > 0 {
				x = phi*x + s*innov(rng)
			}
			e[i] = sigma * x
		}
	}
}

func normal(rng *rand.Rand) float64 { return rng.NormFloat64() }

func squares(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * x
	}
	return out
}

// studentT3 has unit variance (t₃ / √3): heavy tails, symmetric about 0.
func studentT3(rng *rand.Rand) float64 {
	z := rng.NormFloat64()
	c := 0.0
	for range 3 {
		g := rng.NormFloat64()
		c += g * g
	}
	return z / math.Sqrt(c/3) / math.Sqrt(3)
}

func studyScenarios(real []realSeries) []studyScenario {
	out := []studyScenario{
		{"i.i.d. normal", false, ar1(0, normal)},
		{"AR(1) φ=0.2", true, ar1(0.2, normal)},
		{"AR(1) φ=0.4", true, ar1(0.4, normal)},
		{"AR(1) φ=0.6", true, ar1(0.6, normal)},
		// Symmetric about the session's middle, so the session's median ratio is the true one.
		{"linear drift ±1 sd", true, func(rng *rand.Rand, sigma float64, e []float64) {
			for i := range e {
				e[i] = sigma * (rng.NormFloat64() + 2*(float64(i)/float64(len(e)-1)-0.5))
			}
		}},
		{"level shift 1 sd at pair 31", true, func(rng *rand.Rand, sigma float64, e []float64) {
			for i := range e {
				step := -0.5
				if i >= len(e)/2 {
					step = 0.5
				}
				e[i] = sigma * (rng.NormFloat64() + step)
			}
		}},
		{"i.i.d. t₃ (heavy tails)", false, ar1(0, studentT3)},
		{"AR(1) φ=0.4, t₃ innovations", true, ar1(0.4, studentT3)},
	}
	if len(real) > 0 {
		// One pool of every real series, each cut into its own circular blocks, centred at the
		// pool's median (the resampling distribution's median is then 0). Drawing 60 values in
		// blocks from a single series repeats whole stretches of it — a dependence beyond any
		// block length that no real session has — so the pool should hold many series.
		var pool [][]float64
		var all []float64
		for _, rs := range real {
			for _, series := range rs.Series {
				d := LogRatios(series)
				pool = append(pool, d)
				all = append(all, d...)
			}
		}
		med := Median(all)
		for _, d := range pool {
			for i := range d {
				d[i] -= med
			}
		}
		centred := append([]float64(nil), all...)
		for i := range centred {
			centred[i] -= med
		}
		// At least ⌈n^⅓⌉ (the block bootstrap's usual length), so that short-range dependence
		// the automatic rule misses is still carried over.
		L := max(politisWhiteBlockLength(centred), int(math.Ceil(math.Cbrt(float64(studyN)))))
		name := fmt.Sprintf("real A/A noise: %d series, %d pairs, sd %.3f; blocks of %d", len(pool), len(all), math.Sqrt(mean(squares(centred))), L)
		out = append(out, studyScenario{name, true, func(rng *rand.Rand, _ float64, e []float64) {
			for i := 0; i < len(e); {
				d := pool[rng.IntN(len(pool))]
				start := rng.IntN(len(d))
				for k := 0; k < L && i < len(e); k++ {
					e[i] = d[(start+k)%len(d)]
					i++
				}
			}
		}})
	}
	return out
}

// mbbBounds is the circular moving-block bootstrap percentile bounds of the median of d with
// the Politis–White block length: the comparator the code already had as a diagnostic.
func mbbBounds(d []float64, resamples int, seed uint64) (lo, hi float64) {
	L := politisWhiteBlockLength(d)
	n := len(d)
	src := newSource(seed, blockBootstrapStream)
	meds := bootstrapMedians(d, resamples, func(s source, buf []float64) {
		for i := 0; i < n; {
			start := int(s.below(uint64(n)))
			for k := 0; k < L && i < n; k++ {
				buf[i] = d[(start+k)%n]
				i++
			}
		}
	}, src)
	tail := int(math.Round(0.05 * float64(resamples)))
	return meds[tail-1], meds[resamples-tail]
}

// studyMethod computes one-sided lower and upper bounds of the median of d (ln r).
type studyMethod struct {
	name   string
	bounds func(d []float64, rep int) (lo, hi float64)
}

func orderStatisticLog(d []float64, _ int) (float64, float64) {
	xs := sortedCopy(d)
	return xs[23], xs[36]
}

func blockMediansLog(d []float64, _ int) (float64, float64) {
	b, err := blockMedianBounds(expAll(d), studyThreshold, 0.95)
	if err != nil {
		panic(err)
	}
	return math.Log(b.Lower), math.Log(b.Upper)
}

// selfNormalizedLog is the self-normalized sign test (Lobato 2001; Shao 2010), inverted into
// one-sided bounds, a comparator: G(c) = n^{−½} S_n / √(n^{−2} Σ_t (S_t − (t/n) S_n)²) with
// S_t the partial sums of 1{d_i ≤ c} − ½, against the limit's one-sided 95% point √28.31
// (Lobato's Table 1). The lower bound is the smallest d_(j) with G ≥ −z, the upper the largest
// d_(j) whose left-limit G (signs 1{d_i < c}) is ≤ z.
func selfNormalizedLog(d []float64, _ int) (float64, float64) {
	z := math.Sqrt(28.31)
	xs := sortedCopy(d)
	g := func(in func(float64) bool) float64 {
		n := float64(len(d))
		sn := 0.0
		for _, x := range d {
			if in(x) {
				sn += 0.5
			} else {
				sn -= 0.5
			}
		}
		v, st := 0.0, 0.0
		for t, x := range d {
			if in(x) {
				st += 0.5
			} else {
				st -= 0.5
			}
			dev := st - float64(t+1)/n*sn
			v += dev * dev
		}
		if v /= n * n; v < 1e-12 {
			return math.Copysign(math.Inf(1), sn)
		}
		return sn / math.Sqrt(n) / math.Sqrt(v)
	}
	lo, hi := xs[len(xs)-1], xs[0]
	for _, c := range xs {
		if g(func(x float64) bool { return x <= c }) >= -z {
			lo = c
			break
		}
	}
	for j := len(xs) - 1; j >= 0; j-- {
		c := xs[j]
		if g(func(x float64) bool { return x < c }) <= z {
			hi = c
			break
		}
	}
	return lo, hi
}

func expAll(d []float64) []float64 {
	out := make([]float64, len(d))
	for i, x := range d {
		out[i] = math.Exp(x)
	}
	return out
}

// studyCell accumulates one method in one scenario: counts over the replicates it decides.
type studyCell struct {
	runs             int
	coverLo, coverHi int
	fail, pass       [4]int // per studyRatios
}

func (c *studyCell) add(lo, hi float64) {
	c.runs++
	// Noise has median 0, so the bounds of ln r = ln ρ + e are ln ρ + lo and ln ρ + hi.
	if lo <= 0 {
		c.coverLo++
	}
	if hi >= 0 {
		c.coverHi++
	}
	lt := math.Log(studyThreshold)
	for i, rho := range studyRatios {
		l, h := math.Log(rho)+lo, math.Log(rho)+hi
		switch {
		case h <= lt:
			c.pass[i]++
		case l > lt:
			c.fail[i]++
		}
	}
}

func (c *studyCell) rate(k int) float64 {
	if c.runs == 0 {
		return math.NaN()
	}
	return float64(k) / float64(c.runs)
}

// studyRow is one scenario: the battery's breach rate, each method applied where the battery
// breaches (conditional), and the whole gate (the order statistics where it holds, the method
// where it breaches).
type studyRow struct {
	scenario    string
	dependent   bool
	reps        int
	breached    int
	serialOnly  int
	conditional []studyCell // per method, over the replicates where the method is applied
	gate        []studyCell // per method, the combined gate over all replicates
}

func runStudy(reps int, sigma float64, real []realSeries, methods []studyMethod, seed uint64) []studyRow {
	sched, err := BalancedSchedule(20261129, studyN)
	if err != nil {
		panic(err)
	}
	var rows []studyRow
	for si, sc := range studyScenarios(real) {
		row := studyRow{scenario: sc.name, dependent: sc.dependent, reps: reps,
			conditional: make([]studyCell, len(methods)), gate: make([]studyCell, len(methods))}
		rng := rand.New(rand.NewPCG(seed, uint64(si)))
		e := make([]float64, studyN)
		for rep := range reps {
			sc.draw(rng, sigma, e)
			bat := RunBattery(e, sched.Pairs, DefaultBattery)
			osLo, osHi := orderStatisticLog(e, rep)
			if !bat.Valid {
				row.breached++
			}
			applied := !bat.Valid && bat.serialDependenceOnly()
			if applied {
				row.serialOnly++
			}
			for mi, m := range methods {
				if bat.Valid {
					row.gate[mi].add(osLo, osHi)
					continue
				}
				if !applied {
					row.gate[mi].add(math.Inf(-1), math.Inf(1)) // INCONCLUSIVE, covers
					continue
				}
				lo, hi := m.bounds(e, rep)
				row.conditional[mi].add(lo, hi)
				row.gate[mi].add(lo, hi)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func printStudy(w io.Writer, rows []studyRow, methods []studyMethod, sigma float64) {
	fmt.Fprintf(w, "n = %d pairs, threshold T = %.2f, noise sd %.3f in ln r (real series: its own scale), battery α = 0.01 per test\n", studyN, studyThreshold, sigma)
	fmt.Fprintf(w, "cov↓/cov↑: one-sided coverage of the lower/upper bound (nominal 0.95); FAIL@ρ, PASS@ρ: rates at true median ratio ρ\n\n")
	head := "| scenario | reps | breach | method | where | runs | cov↓ | cov↑ | FAIL@1.00 | PASS@1.00 | FAIL@1.05 (level) | FAIL@1.10 | FAIL@1.15 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
	fmt.Fprint(w, head)
	for _, r := range rows {
		for mi, m := range methods {
			for _, part := range []struct {
				where string
				c     studyCell
			}{{"applied", r.conditional[mi]}, {"whole gate", r.gate[mi]}} {
				c := part.c
				fmt.Fprintf(w, "| %s | %d | %.3f | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
					r.scenario, r.reps, float64(r.breached)/float64(r.reps), m.name, part.where, c.runs,
					c.rate(c.coverLo), c.rate(c.coverHi), c.rate(c.fail[0]), c.rate(c.pass[0]), c.rate(c.fail[1]), c.rate(c.fail[2]), c.rate(c.fail[3]))
			}
		}
	}
}

// realSeries are ratio series recorded by real campaigns (testdata/ratios/*.json): they make
// one scenario whose noise is block-resampled from them (their own scale and dependence).
type realSeries struct {
	File     string      `json:"-"`
	Campaign string      `json:"campaign"`
	Row      string      `json:"row"`
	Host     string      `json:"host"`
	Note     string      `json:"note"`
	Series   [][]float64 `json:"series"` // each in execution order
}

func loadRealSeries(t testing.TB) []realSeries {
	paths, _ := filepath.Glob("testdata/ratios/*.json")
	var out []realSeries
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s realSeries
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for k, rs := range s.Series {
			if len(rs) < 20 {
				t.Fatalf("%s: series %d has %d ratios, want at least 20 to resample blocks from", p, k+1, len(rs))
			}
			for i, r := range rs {
				if !(r > 0) || math.IsInf(r, 0) {
					t.Fatalf("%s: series %d ratio %d is %v", p, k+1, i+1, r)
				}
			}
		}
		s.File = filepath.Base(p)
		out = append(out, s)
	}
	return out
}

// studySigma is the noise scale (sd of ln r) of the synthetic scenarios. Coverage and the level
// do not depend on it (every method is scale-equivariant in ln r); the PASS and power columns
// do. KVPARITY_STUDY_SIGMA overrides it.
const studySigma = 0.03

// TestDependenceStudy asserts the level of the block-median method where it is applied, in
// every dependent scenario: coverage of each one-sided bound ≥ 0.95 − 3 SE and FAIL at the
// threshold ≤ 0.05 + 3 SE (SE of the Monte Carlo rate), and a false FAIL at 1.00 of 0.
func TestDependenceStudy(t *testing.T) {
	reps := 4000
	if testing.Short() {
		reps = 600
	}
	if s := os.Getenv("KVPARITY_STUDY_REPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("KVPARITY_STUDY_REPS=%q: want a positive count", s)
		}
		reps = n
	}
	methods := []studyMethod{{"block medians (the method)", blockMediansLog}}
	full := os.Getenv("KVPARITY_STUDY_REPS") != ""
	if full {
		methods = append(methods,
			studyMethod{"protocol literal: INCONCLUSIVE", func([]float64, int) (float64, float64) { return math.Inf(-1), math.Inf(1) }},
			studyMethod{"order statistics X(24)/X(37)", orderStatisticLog},
			studyMethod{"circular MBB, Politis–White block", func(d []float64, rep int) (float64, float64) { return mbbBounds(d, 999, uint64(rep)) }},
			studyMethod{"self-normalized sign test", selfNormalizedLog},
		)
	}
	real := loadRealSeries(t)
	sigma := studySigma
	if s := os.Getenv("KVPARITY_STUDY_SIGMA"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) {
			t.Fatalf("KVPARITY_STUDY_SIGMA=%q: want a positive sd of ln r", s)
		}
		sigma = v
	}
	rows := runStudy(reps, sigma, real, methods, 29)
	var b strings.Builder
	printStudy(&b, rows, methods, sigma)
	if full || testing.Verbose() {
		t.Log("\n" + b.String())
	}
	for _, r := range rows {
		c := r.conditional[0]
		if !r.dependent || c.runs < 100 {
			continue
		}
		se := math.Sqrt(0.05 * 0.95 / float64(c.runs))
		if lo, hi := c.rate(c.coverLo), c.rate(c.coverHi); lo < 0.95-3*se || hi < 0.95-3*se {
			t.Errorf("%s: block-median coverage %.3f/%.3f over %d applied runs, below 0.95 − 3 SE", r.scenario, lo, hi, c.runs)
		}
		if f := c.rate(c.fail[1]); f > 0.05+3*se {
			t.Errorf("%s: FAIL at the threshold %.3f over %d applied runs, above 0.05 + 3 SE", r.scenario, f, c.runs)
		}
		if c.fail[0] > 0 {
			t.Errorf("%s: %d false FAILs at a true ratio of 1.00", r.scenario, c.fail[0])
		}
	}
}
