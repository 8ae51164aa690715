package investigate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kvparity/engine"
	"kvparity/engine/profile"
	"kvparity/internal/atomicfile"
	"kvparity/internal/procgroup"
)

// profileHz is the sampling frequency: a prime, so the sampler does not beat with periodic
// work; about a thousand samples per second of replay.
const profileHz = 997

// A short replay gives too few samples for its shares to mean anything (a 10% slowdown in a
// 0.12 s replay is a dozen samples, and its share swung from 4% to 9% between runs), so each arm
// is profiled in rounds, baseline and candidate alternating as the gate's pairs do, until each
// has minReplay of replay (about 2,000 samples of a busy replay: a share's standard error then
// stays under 1 point), at most maxRounds. Time, not samples, sets the rounds: a replay that
// mostly waits gives few samples however often it runs. minSamples only warns.
const (
	minReplay  = 2 * time.Second
	maxRounds  = 20
	minSamples = 1000
)

// Start runs the investigation as a stage (stoppable like any other); equivalence
// is how the caller established equivalent semantic work. A desk row is refused
// (engine.ErrDeskBuild).
func Start(h engine.StageHost, equivalence string) error {
	if h.Row().Desk() { // a desk build's profile is not the release artifact's
		return engine.ErrDeskBuild
	}
	return h.Start(engine.StageInvestigate, func(ctx context.Context) bool {
		inv, err := investigate(ctx, h, equivalence)
		switch {
		case ctx.Err() != nil:
			return true
		case err != nil:
			h.Block(engine.StageInvestigate, err.Error())
		default:
			h.Emit(engine.InvestigationDone{Investigation: inv})
		}
		return false
	})
}

// investigate profiles both arms, compares the profiles and attributes the .text growth, keeps
// the investigation in its file and journals it.
func investigate(ctx context.Context, h engine.StageHost, equivalence string) (*engine.Investigation, error) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return nil, errors.New("investigate: Linux perf is not installed (Debian: apt-get install linux-perf); it samples each arm's replay with cpu-clock")
	}
	if err := h.PrepareArms(); err != nil {
		return nil, err
	}
	version, _ := procgroup.Command(ctx, perf, "--version").Output()
	cpus := h.CPUs()
	cpu := cpus[len(cpus)-1]
	inv := &engine.Investigation{Equivalence: equivalence, CPU: cpu, Started: time.Now().UTC(),
		Profiler: fmt.Sprintf("%s · cpu-clock at %d Hz · call graphs (-g) · CPU %d", strings.TrimSpace(string(version)), profileHz, cpu)}
	arms := []engine.Arm{engine.Baseline, engine.Candidate}
	profiles := map[engine.Arm]*profile.Profile{}
	attempts := map[engine.Arm]int{}
	for _, arm := range arms {
		attempts[arm] = h.History().NextAttempt(engine.KindProfile, arm, 0)
	}
	// The first round's shorter replay sets how many rounds there are.
	inv.Rounds = 1
	for round := 1; round <= inv.Rounds; round++ {
		shortest := time.Duration(math.MaxInt64)
		for _, arm := range arms {
			run, prof, cmdline, err := profileArm(ctx, h, perf, arm, cpu, round, attempts[arm])
			if err != nil {
				return nil, err
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			inv.Runs = append(inv.Runs, run)
			if profiles[arm] == nil {
				profiles[arm], inv.Reproduce = prof, append(inv.Reproduce, cmdline)
			} else {
				profiles[arm].Add(prof)
			}
			shortest = min(shortest, time.Duration(run.ElapsedMs*float64(time.Millisecond)))
		}
		if round == 1 {
			inv.Rounds = roundsFor(shortest)
		}
	}
	for _, arm := range arms {
		if n := profiles[arm].Samples; n < minSamples {
			inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: only %d samples in %d round(s); shares below a few percent are noise", arm, n, inv.Rounds))
		}
	}
	inv.Differential = profile.Compare(profiles[engine.Baseline], profiles[engine.Candidate])
	if nm, err := exec.LookPath("nm"); err == nil {
		syms := map[engine.Arm]map[string]int64{}
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			out, err := procgroup.Command(ctx, nm, "-S", "-C", filepath.Join(h.Dir(), h.Pinned(arm).Path)).Output()
			if err != nil {
				inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: nm: %v (no symbol table: the footprint is not attributed)", arm, err))
				break
			}
			if syms[arm], err = profile.Symbols(bytes.NewReader(out)); err != nil {
				return nil, fmt.Errorf("investigate: %s: %w", arm, err)
			}
		}
		if len(syms) == 2 {
			g := profile.TextDelta(syms[engine.Baseline], syms[engine.Candidate])
			inv.Text = &g
		}
	} else {
		inv.Warnings = append(inv.Warnings, "nm is not installed (binutils): the footprint is not attributed to symbols")
	}
	path := filepath.Join(h.Dir(), filepath.FromSlash(engine.FileInvestigation))
	if err := atomicfile.InsideNoLinks(h.Dir(), filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := engine.WriteJSONFile(path, inv); err != nil {
		return nil, fmt.Errorf("investigate: %w", err)
	}
	note := engine.MarshalData(engine.InvestigationNote{File: engine.FileInvestigation, Top: inv.Differential.Top(5)})
	if err := h.Append(engine.Record{Type: engine.RecInvestigation, Stage: engine.StageInvestigate, Data: note}); err != nil {
		return nil, err
	}
	return inv, nil
}

// roundsFor is how many rounds give each arm minReplay when one round's replay took d (at most
// maxRounds).
func roundsFor(d time.Duration) int {
	if d <= 0 {
		return maxRounds
	}
	return int(min(maxRounds, (minReplay+d-1)/d))
}

// profileArm runs one arm's replay under `perf record` pinned to cpu and folds its samples:
// investigate/<arm>[-r<round>][-a<attempt>].
func profileArm(ctx context.Context, h engine.StageHost, perf string, arm engine.Arm, cpu, round, attempt int) (engine.ProfiledRun, *profile.Profile, string, error) {
	id := engine.RunID("investigate/" + string(arm))
	if round > 1 {
		id += engine.RunID("-r" + strconv.Itoa(round))
	}
	if attempt > 1 {
		id += engine.RunID("-a" + strconv.Itoa(attempt))
	}
	spec := h.RunSpec(id, arm, engine.KindProfile, round, attempt, false)
	data := filepath.Join(spec.Dir, "perf.data")
	replay := append([]string{spec.Binary}, spec.Args...)
	spec.Binary = perf
	// --no-buildid-cache: perf would otherwise copy every binary it saw into ~/.debug, outside
	// the campaign; symbols are read from the pinned artifacts themselves.
	spec.Args = append([]string{"record", "-e", "cpu-clock", "-F", strconv.Itoa(profileHz), "-g", "-q", "--no-buildid-cache", "-o", data, "--"}, replay...)
	spec.Env = append(os.Environ(), "PERF_BUILDID_DIR="+filepath.Join(spec.Dir, "buildid"))
	spec.CPUs = []int{cpu}
	cmdline := "taskset -c " + strconv.Itoa(cpu) + " " + perf + " " + strings.Join(spec.Args, " ")
	base := engine.Record{Run: id, Arm: arm, Kind: engine.KindProfile, Index: round, Attempt: attempt, Gen: max(h.Pinned(arm).Gen, 1)}
	res, startErr := h.RecordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return engine.ProfiledRun{}, nil, "", startErr
	}
	h.Emit(engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindProfile, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
	if res.Cancelled {
		return engine.ProfiledRun{}, nil, "", ctx.Err()
	}
	end := engine.EndRecord(base, res)
	if res.Err != nil {
		end.Error = res.Err.Error()
	}
	if err := h.Append(end); err != nil {
		return engine.ProfiledRun{}, nil, "", err
	}
	if res.Err != nil {
		return engine.ProfiledRun{}, nil, "", fmt.Errorf("investigate: the profiled %s replay failed: %w", arm, res.Err)
	}
	// Only the replay's own samples: perf names a sample by its thread's command, which is the
	// executable's name cut to the kernel's 15 characters.
	comm := filepath.Base(replay[0])
	if len(comm) > 15 {
		comm = comm[:15]
	}
	script := procgroup.Command(ctx, perf, "script", "-i", data, "-F", "comm,ip,sym")
	script.Env = spec.Env // never the user's build-id cache: a stale entry there would hide the symbols
	out, err := script.StdoutPipe()
	if err != nil {
		return engine.ProfiledRun{}, nil, "", err
	}
	var stderr bytes.Buffer
	script.Stderr = &stderr
	if err := script.Start(); err != nil {
		return engine.ProfiledRun{}, nil, "", fmt.Errorf("investigate: perf script: %w", err)
	}
	prof, perr := profile.ParseScript(out, comm)
	if err := script.Wait(); err != nil {
		return engine.ProfiledRun{}, nil, "", fmt.Errorf("investigate: perf script -i %s: %v: %s", data, err, lastLines(stderr.String()))
	}
	if perr != nil {
		return engine.ProfiledRun{}, nil, "", fmt.Errorf("investigate: %s: %w", data, perr)
	}
	rel, _ := filepath.Rel(h.Dir(), data)
	return engine.ProfiledRun{Arm: arm, Run: id, Data: filepath.ToSlash(rel), Samples: prof.Samples, ElapsedMs: end.ElapsedMs}, prof, cmdline, nil
}

// lastLines is the end of a tool's stderr for an error message.
func lastLines(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}
