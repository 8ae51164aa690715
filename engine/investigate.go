package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kvparity/engine/profile"
	"kvparity/internal/atomicfile"
	"kvparity/internal/procgroup"
)

// Protocol stage 7's investigation: "attribute the regression to specific code before
// optimizing or requesting a waiver". After equivalent semantic work is confirmed (the caller
// says how: the campaign report's semantic verdict), each arm's replay runs once under Linux
// perf's cpu-clock sampler, one at a time on the performance stage's measured CPU, with the
// row's representative configuration and identical settings for both; the two profiles are
// compared (self-time share per function and the delta, the call paths that grew, functions
// sampled only in the candidate), and the two binaries' symbol tables attribute any `.text`
// growth to symbols. Everything is kept under investigation/ and runs/investigate/.

// stageInvestigate is the investigation's stage name (events and journal).
const stageInvestigate Stage = "investigate"

// KindProfile is a profiled replay of the investigation.
const KindProfile RunKind = "profile"

// recInvestigation records a finished investigation (Data: an investigationNote).
const recInvestigation RecordType = "investigation"

// An investigationNote is what the journal keeps of an investigation: its file and the top
// function deltas (the whole Investigation is in the file).
type investigationNote struct {
	File string                  `json:"file"`
	Top  []profile.FunctionDelta `json:"top"`
}

func init() { defineRecord[investigationNote](recInvestigation, nil, nil) } // nothing folds it: the report reads the file

// FileInvestigation is the investigation's result, relative to the campaign folder.
const FileInvestigation = "investigation/profile.json"

// profileHz is the sampling frequency: a prime, so the sampler does not beat with periodic
// work; about a thousand samples per second of replay.
const profileHz = 997

// An Investigation is stage 7's differential profile of baseline and candidate.
type Investigation struct {
	// Equivalence says how equivalent semantic work was established before profiling.
	Equivalence string `json:"equivalence"`
	Profiler    string `json:"profiler"` // e.g. "perf version 6.1 · cpu-clock at 997 Hz · call graphs (-g)"
	CPU         int    `json:"cpu"`      // the performance stage's measured CPU
	// Runs are the two profiled replays, baseline first.
	Runs         []ProfiledRun        `json:"runs"`
	Differential profile.Differential `json:"differential"`
	Text         *profile.TextGrowth  `json:"text_growth,omitempty"` // nil when nm is missing
	Reproduce    []string             `json:"reproduce"`             // the commands, one per arm
	Warnings     []string             `json:"warnings,omitempty"`
	Started      time.Time            `json:"started"`
}

// A ProfiledRun is one arm's profiled replay.
type ProfiledRun struct {
	Arm       Arm     `json:"arm"`
	Run       RunID   `json:"run"`
	Data      string  `json:"perf_data"` // relative to the campaign folder
	Samples   int     `json:"samples"`
	ElapsedMs float64 `json:"elapsed_ms"`
}

// InvestigationDone: the investigation finished and is kept in FileInvestigation.
type InvestigationDone struct{ Investigation *Investigation }

func (InvestigationDone) event() {}

// StartInvestigation runs the investigation as a stage (stoppable like any other); equivalence
// is how the caller established equivalent semantic work.
func (c *Campaign) StartInvestigation(equivalence string) error {
	return c.startStage(stageInvestigate, func(ctx context.Context) bool {
		inv, err := c.investigate(ctx, equivalence)
		switch {
		case ctx.Err() != nil:
			return true
		case err != nil:
			c.block(stageInvestigate, err.Error())
		default:
			c.emit(InvestigationDone{Investigation: inv})
		}
		return false
	})
}

// LoadInvestigation reads a campaign's kept investigation (nil, nil when there is none).
func LoadInvestigation(dir string) (*Investigation, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(FileInvestigation)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var inv Investigation
	if err := json.Unmarshal(b, &inv); err != nil {
		return nil, fmt.Errorf("%s: %w", FileInvestigation, err)
	}
	return &inv, nil
}

func (c *Campaign) investigate(ctx context.Context, equivalence string) (*Investigation, error) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return nil, errors.New("investigate: Linux perf is not installed (Debian: apt-get install linux-perf); it samples each arm's replay with cpu-clock")
	}
	if err := c.prepareArms(); err != nil {
		return nil, err
	}
	version, _ := procgroup.Command(ctx, perf, "--version").Output()
	cpu := c.cpus[len(c.cpus)-1]
	inv := &Investigation{Equivalence: equivalence, CPU: cpu, Started: time.Now().UTC(),
		Profiler: fmt.Sprintf("%s · cpu-clock at %d Hz · call graphs (-g) · CPU %d", strings.TrimSpace(string(version)), profileHz, cpu)}
	profiles := map[Arm]*profile.Profile{}
	for _, arm := range []Arm{Baseline, Candidate} {
		run, prof, cmdline, err := c.profileArm(ctx, perf, arm, cpu)
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		inv.Runs = append(inv.Runs, run)
		inv.Reproduce = append(inv.Reproduce, cmdline)
		profiles[arm] = prof
		if prof.Samples < 100 {
			inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: only %d samples; shares below a few percent are noise", arm, prof.Samples))
		}
	}
	inv.Differential = profile.Compare(profiles[Baseline], profiles[Candidate])
	if nm, err := exec.LookPath("nm"); err == nil {
		syms := map[Arm]map[string]int64{}
		for _, arm := range []Arm{Baseline, Candidate} {
			out, err := procgroup.Command(ctx, nm, "-S", "-C", filepath.Join(c.dir, c.Pinned(arm).Path)).Output()
			if err != nil {
				inv.Warnings = append(inv.Warnings, fmt.Sprintf("%s: nm: %v (no symbol table: the footprint is not attributed)", arm, err))
				break
			}
			if syms[arm], err = profile.Symbols(bytes.NewReader(out)); err != nil {
				return nil, fmt.Errorf("investigate: %s: %w", arm, err)
			}
		}
		if len(syms) == 2 {
			g := profile.TextDelta(syms[Baseline], syms[Candidate])
			inv.Text = &g
		}
	} else {
		inv.Warnings = append(inv.Warnings, "nm is not installed (binutils): the footprint is not attributed to symbols")
	}
	path := filepath.Join(c.dir, filepath.FromSlash(FileInvestigation))
	if err := atomicfile.InsideNoLinks(c.dir, filepath.Dir(path)); err != nil {
		return nil, errIO{err}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, errIO{err}
	}
	if err := writeJSONFile(path, inv); err != nil {
		return nil, errIO{fmt.Errorf("investigate: %w", err)}
	}
	note := marshalData(investigationNote{FileInvestigation, inv.Differential.Top(5)})
	if _, err := c.journal.Append(Record{Type: recInvestigation, Stage: stageInvestigate, Data: note}); err != nil {
		return nil, err
	}
	return inv, nil
}

// profileArm runs one arm's replay under `perf record` pinned to cpu and folds its samples.
func (c *Campaign) profileArm(ctx context.Context, perf string, arm Arm, cpu int) (ProfiledRun, *profile.Profile, string, error) {
	attempt := c.history().nextAttempt(KindProfile, arm, 0)
	id := RunID("investigate/" + string(arm))
	if attempt > 1 {
		id += RunID("-a" + strconv.Itoa(attempt))
	}
	spec := c.runSpec(id, arm, KindProfile, 1, attempt, false)
	data := filepath.Join(spec.Dir, "perf.data")
	replay := append([]string{spec.Binary}, spec.Args...)
	spec.Binary = perf
	// --no-buildid-cache: perf would otherwise copy every binary it saw into ~/.debug, outside
	// the campaign; symbols are read from the pinned artifacts themselves.
	spec.Args = append([]string{"record", "-e", "cpu-clock", "-F", strconv.Itoa(profileHz), "-g", "-q", "--no-buildid-cache", "-o", data, "--"}, replay...)
	spec.Env = append(os.Environ(), "PERF_BUILDID_DIR="+filepath.Join(spec.Dir, "buildid"))
	spec.CPUs = []int{cpu}
	cmdline := "taskset -c " + strconv.Itoa(cpu) + " " + perf + " " + strings.Join(spec.Args, " ")
	base := Record{Run: id, Arm: arm, Kind: KindProfile, Index: 1, Attempt: attempt, Gen: max(c.Pinned(arm).Gen, 1)}
	res, startErr := c.recordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return ProfiledRun{}, nil, "", startErr
	}
	c.emit(RunFinished{Run: id, Arm: arm, Kind: KindProfile, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
	if res.Cancelled {
		return ProfiledRun{}, nil, "", ctx.Err()
	}
	end := endRecord(base, res)
	if res.Err != nil {
		end.Error = res.Err.Error()
	}
	if _, err := c.journal.Append(end); err != nil {
		return ProfiledRun{}, nil, "", err
	}
	if res.Err != nil {
		return ProfiledRun{}, nil, "", fmt.Errorf("investigate: the profiled %s replay failed: %w", arm, res.Err)
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
		return ProfiledRun{}, nil, "", err
	}
	var stderr bytes.Buffer
	script.Stderr = &stderr
	if err := script.Start(); err != nil {
		return ProfiledRun{}, nil, "", fmt.Errorf("investigate: perf script: %w", err)
	}
	prof, perr := profile.ParseScript(out, comm)
	if err := script.Wait(); err != nil {
		return ProfiledRun{}, nil, "", fmt.Errorf("investigate: perf script -i %s: %v: %s", data, err, lastLines(stderr.String()))
	}
	if perr != nil {
		return ProfiledRun{}, nil, "", fmt.Errorf("investigate: %s: %w", data, perr)
	}
	rel, _ := filepath.Rel(c.dir, data)
	return ProfiledRun{Arm: arm, Run: id, Data: filepath.ToSlash(rel), Samples: prof.Samples, ElapsedMs: end.ElapsedMs}, prof, cmdline, nil
}

// lastLines is the end of a tool's stderr for an error message.
func lastLines(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}
