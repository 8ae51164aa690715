package engine

import (
	"fmt"
	"kvparity/engine/run"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Perturbed repetitions (reprotest-style). The protocol's plain repetitions run pinned to one
// CPU each, which mostly serializes a multi-threaded runtime: an executor-order leak then
// ships. After the plain repetitions, each arm runs one more repetition with every variation
// of the row's set applied at once, identically for both arms. When its digest differs from
// the arm's plain digest the arm is UNSTABLE, and each variation is then tried alone (a few
// times for the scheduling ones, whose effect is intermittent) to name what triggers it. One
// process for the whole set, not one per variation, keeps the stage's cost within twice the
// plain stage's at the protocol's two repetitions; reprotest varies everything in its second
// build for the same reason, and bisects only on a difference.

// A Variation is one perturbation of a replay process's environment.
type Variation string

// The variations of the default set, in the order they are tried alone.
const (
	varyAllCores   Variation = "all-cores"   // a CPU set of every usable CPU instead of one
	varyThreads    Variation = "threads"     // thread-count variables set high (GOMAXPROCS, TOKIO_WORKER_THREADS, RAYON_NUM_THREADS)
	varySchedNoise Variation = "sched-noise" // a bounded CPU load on a CPU of the run's set
	varyCwd        Variation = "cwd"         // another working directory (spaces, non-ASCII)
	varyEnvOrder   Variation = "env-order"   // the environment in reverse order
	varyUmask      Variation = "umask"       // umask 077 instead of kvparity's
	varyLocale     Variation = "locale"      // LC_ALL and LANG set to tr_TR.UTF-8
	varyTZ         Variation = "tz"          // TZ set to Pacific/Chatham (UTC+12:45)
	varyASLR       Variation = "aslr"        // address-space layout randomization off (on when the host has it off)
)

// defaultPerturbations is the set a row gets when [determinism] leaves perturbations out.
var defaultPerturbations = []Variation{varyAllCores, varyThreads, varySchedNoise, varyCwd, varyEnvOrder, varyUmask, varyLocale, varyTZ, varyASLR}

// VariationTries is how often a variation is tried alone before it is called not to reproduce
// a difference the whole set showed: scheduling effects are intermittent, the others are not.
func VariationTries(v Variation) int {
	switch v {
	case varyAllCores, varyThreads, varySchedNoise:
		return 3
	}
	return 1
}

// dependence is what a difference under v says about the leak, in the finding's words.
func (v Variation) dependence() string {
	switch v {
	case varyAllCores, varyThreads, varySchedNoise:
		return "thread-order dependent"
	case varyCwd:
		return "depends on the working directory"
	case varyEnvOrder:
		return "depends on the environment's order"
	case varyUmask:
		return "depends on the umask"
	case varyLocale:
		return "depends on the locale"
	case varyTZ:
		return "depends on the time zone"
	case varyASLR:
		return "depends on the address-space layout (pointer values, address-seeded hashing)"
	}
	return "depends on " + string(v)
}

// Describe says in words what v does, for the report (host-independent: the same campaign
// always gives the same report bytes).
func (v Variation) Describe() string {
	switch v {
	case varyAllCores:
		return "every usable CPU instead of one"
	case varyThreads:
		return "GOMAXPROCS, TOKIO_WORKER_THREADS and RAYON_NUM_THREADS set to 4x the usable CPUs (at least 8)"
	case varySchedNoise:
		return "a CPU load (1 ms on, 1 ms off) on a CPU of the run's set"
	case varyCwd:
		return "working directory " + strconv.Quote(perturbedCwd)
	case varyEnvOrder:
		return "the environment in reverse order"
	case varyUmask:
		return "umask 077"
	case varyLocale:
		return "LC_ALL=LANG=" + perturbedLocale
	case varyTZ:
		return "TZ=" + perturbedTZ
	case varyASLR:
		return "address-space layout randomization off (personality ADDR_NO_RANDOMIZE; nothing when the host has it off)"
	}
	return string(v)
}

const (
	perturbedCwd    = "cwd variation ü" // a folder inside the run folder
	perturbedLocale = "tr_TR.UTF-8"     // dotless i: case mapping differs from en/C
	perturbedTZ     = "Pacific/Chatham" // a quarter-hour offset
	perturbedUmask  = 0o077
)

// perturbedThreads is the thread count the threads variation asks for: well above the CPUs,
// so work interleaves even on one.
func perturbedThreads() int { return max(8, 4*len(run.AllowedCPUs())) }

// ASLROn reports whether the host randomizes address-space layout (randomize_va_space > 0).
func ASLROn() bool {
	b, err := os.ReadFile("/proc/sys/kernel/randomize_va_space")
	return err != nil || strings.TrimSpace(string(b)) != "0"
}

// parseVariation checks a variation name.
func parseVariation(s string) (Variation, error) {
	v := Variation(s)
	if slices.Contains(defaultPerturbations, v) {
		return v, nil
	}
	names := make([]string, len(defaultPerturbations))
	for i, d := range defaultPerturbations {
		names[i] = string(d)
	}
	return "", fmt.Errorf("%q is not a variation (one of %s)", s, strings.Join(names, ", "))
}

// ApplyVariations changes spec for the variations vs; cpus is the run's plain CPU set and all
// every CPU kvparity may use.
func ApplyVariations(spec *RunSpec, vs []Variation, cpus, all []int) {
	has := func(v Variation) bool { return slices.Contains(vs, v) }
	spec.CPUs = cpus
	if has(varyAllCores) {
		spec.CPUs = slices.Clone(all)
	}
	env := os.Environ()
	set := func(k, v string) {
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		env = append(env, k+"="+v)
	}
	if has(varyThreads) {
		n := strconv.Itoa(perturbedThreads())
		set("GOMAXPROCS", n)
		set("TOKIO_WORKER_THREADS", n)
		set("RAYON_NUM_THREADS", n)
	}
	if has(varyLocale) {
		set("LC_ALL", perturbedLocale)
		set("LANG", perturbedLocale)
	}
	if has(varyTZ) {
		set("TZ", perturbedTZ)
	}
	if has(varyEnvOrder) {
		slices.Reverse(env)
	}
	if has(varyThreads) || has(varyLocale) || has(varyTZ) || has(varyEnvOrder) {
		spec.Env = env
	}
	if has(varyCwd) {
		spec.WorkDir = filepath.Join(spec.Dir, perturbedCwd)
	}
	if has(varyUmask) {
		spec.Umask = perturbedUmask
	}
	spec.NoASLR = has(varyASLR) && ASLROn()
	spec.Noise = has(varySchedNoise)
}
