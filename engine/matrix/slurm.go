package matrix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"kvparity/internal/procgroup"
)

// Slurm talks to a Slurm cluster through its client tools (sbatch, squeue, scontrol, sacct),
// each started with an argument vector, never through a shell. kvparity fans rows out to Slurm
// rather than distributing work itself (issue 8); it never cancels a job: a matrix that stops
// following leaves its jobs running.
type Slurm struct {
	// Tool paths; empty means the name is looked up in PATH.
	sbatch, squeue, scontrol, sacct string

	accounting *bool // sacct answers (slurmdbd configured); nil until first asked
}

// A JobState is Slurm's state word for a job (squeue %T, sacct State, scontrol JobState).
type JobState string

// Job states kvparity distinguishes. Everything else Slurm reports is treated as still active.
const (
	JobPending     JobState = "PENDING"
	JobRunning     JobState = "RUNNING"
	JobCompleted   JobState = "COMPLETED"
	JobFailed      JobState = "FAILED"
	JobCancelled   JobState = "CANCELLED"
	JobTimeout     JobState = "TIMEOUT"
	JobNodeFail    JobState = "NODE_FAIL"
	JobPreempted   JobState = "PREEMPTED"
	JobBootFail    JobState = "BOOT_FAIL"
	JobDeadline    JobState = "DEADLINE"
	JobOutOfMemory JobState = "OUT_OF_MEMORY"
	// JobUnknown: neither the controller nor accounting knows the job any more (purged after
	// MinJobAge with accounting off). The row's own campaign then says how far it got.
	JobUnknown JobState = "UNKNOWN"
)

// Terminal reports whether the job has ended.
func (s JobState) Terminal() bool {
	switch s {
	case JobCompleted, JobFailed, JobCancelled, JobTimeout, JobNodeFail, JobPreempted,
		JobBootFail, JobDeadline, JobOutOfMemory, JobUnknown:
		return true
	}
	return false
}

// environmental reports whether the job ended for a reason outside the row: the scheduler
// evicted it (preemption, cancellation, time limit, deadline) or the node failed. Such an end
// says nothing about the revisions; the row resumes from its journal when resubmitted. An
// out-of-memory kill is not environmental: the replay itself asked for the memory.
func (s JobState) environmental() bool {
	switch s {
	case JobCancelled, JobTimeout, JobNodeFail, JobPreempted, JobBootFail, JobDeadline:
		return true
	}
	return false
}

// jobInfo is what kvparity learns about one job.
type jobInfo struct {
	ID       string
	State    JobState
	Reason   string // Slurm's reason (pending reason, or why it ended), "" when None
	Node     string // node list; "" before it starts
	ExitCode int    // the batch script's exit status (kvparity run's verdict exit code)
	Signal   int    // the signal that ended it, 0 when none
	Source   string // which tool answered: squeue, scontrol, sacct
}

// slurmError is a Slurm tool that failed: its argument vector and what it printed.
type slurmError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *slurmError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("%s: %s", strings.Join(e.Args, " "), msg)
}

func (e *slurmError) Unwrap() error { return e.Err }

func (s *Slurm) tool(path, name string) string {
	if path != "" {
		return path
	}
	return name
}

// run starts one Slurm tool and returns its stdout.
func (s *Slurm) run(ctx context.Context, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := procgroup.Command(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), &slurmError{Args: args, Err: err, Stderr: errb.String()}
	}
	return out.String(), nil
}

// Available reports whether a Slurm controller answers (sbatch could submit). The error says
// which tool is missing or what the controller said.
func (s *Slurm) Available(ctx context.Context) error {
	for _, t := range []string{s.tool(s.sbatch, "sbatch"), s.tool(s.squeue, "squeue"), s.tool(s.scontrol, "scontrol")} {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("slurm: %s not found (install slurm-wlm, see docs/slurm.md): %w", t, err)
		}
	}
	if _, err := s.run(ctx, s.tool(s.scontrol, "scontrol"), "ping"); err != nil {
		return fmt.Errorf("slurm: controller does not answer: %w", err)
	}
	return nil
}

// submit runs sbatch on a job script and returns the job id. extra is passed before the script
// (the user's --partition and --sbatch-arg values, which override the script's #SBATCH lines).
func (s *Slurm) submit(ctx context.Context, script string, extra []string) (string, error) {
	out, err := s.run(ctx, s.submitArgs(script, extra)...)
	if err != nil {
		return "", err
	}
	return parseSbatch(out)
}

// submitArgs is the sbatch argument vector submit runs (recorded with each job).
func (s *Slurm) submitArgs(script string, extra []string) []string {
	args := append([]string{s.tool(s.sbatch, "sbatch"), "--parsable"}, extra...)
	return append(args, script)
}

// parseSbatch reads `sbatch --parsable` output: "jobid" or "jobid;cluster".
func parseSbatch(out string) (string, error) {
	line := strings.TrimSpace(out)
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:] // warnings come first; the id is the last line
	}
	id, _, _ := strings.Cut(line, ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch --parsable printed %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// job asks for one job's state: squeue first (cheap, covers active and recently ended jobs),
// then sacct when accounting is configured, then scontrol (accounting off: the controller keeps
// ended jobs for MinJobAge). A job no tool knows is JobUnknown, not an error.
func (s *Slurm) job(ctx context.Context, id string) (jobInfo, error) {
	out, err := s.run(ctx, s.tool(s.squeue, "squeue"), "-h", "--states=all", "-j", id, "-o", "%i|%T|%N|%r")
	if err == nil {
		if info, ok := parseSqueue(out, id); ok && !info.State.Terminal() {
			return info, nil
		}
	} else if !isInvalidJob(err) {
		return jobInfo{}, err
	}
	// Ended (or unknown to squeue): the exit code lives in sacct or scontrol.
	if s.accountingOn(ctx) {
		out, err := s.run(ctx, s.tool(s.sacct, "sacct"), "-n", "-P", "-X", "-j", id, "-o", "JobID,State,NodeList,ExitCode,Reason")
		if err == nil {
			if info, ok := parseSacct(out, id); ok {
				return info, nil
			}
		}
	}
	out, err = s.run(ctx, s.tool(s.scontrol, "scontrol"), "show", "job", "-o", id)
	if err != nil {
		if isInvalidJob(err) {
			return jobInfo{ID: id, State: JobUnknown, Source: "scontrol"}, nil
		}
		return jobInfo{}, err
	}
	info, ok := parseScontrol(out)
	if !ok {
		return jobInfo{}, fmt.Errorf("scontrol show job %s: no JobState in %q", id, strings.TrimSpace(out))
	}
	return info, nil
}

// accountingOn asks sacct once whether accounting storage is configured.
func (s *Slurm) accountingOn(ctx context.Context) bool {
	if s.accounting != nil {
		return *s.accounting
	}
	_, err := s.run(ctx, s.tool(s.sacct, "sacct"), "-n", "-X", "-j", "1", "-o", "JobID")
	on := err == nil // "accounting storage is disabled", or no sacct: scontrol answers instead
	s.accounting = &on
	return on
}

func isInvalidJob(err error) bool {
	var se *slurmError
	return errors.As(err, &se) && strings.Contains(strings.ToLower(se.Stderr), "invalid job id")
}

// parseSqueue reads `squeue -h -o %i|%T|%N|%r` lines and returns the one for id.
func parseSqueue(out, id string) (jobInfo, bool) {
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) < 4 || f[0] != id {
			continue
		}
		return jobInfo{ID: id, State: stateWord(f[1]), Node: noneEmpty(f[2]), Reason: noneEmpty(f[3]), Source: "squeue"}, true
	}
	return jobInfo{}, false
}

// parseSacct reads `sacct -n -P -X -o JobID,State,NodeList,ExitCode,Reason` for id.
func parseSacct(out, id string) (jobInfo, bool) {
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) < 4 || f[0] != id {
			continue
		}
		info := jobInfo{ID: id, State: stateWord(f[1]), Node: noneEmpty(f[2]), Source: "sacct"}
		info.ExitCode, info.Signal = parseExitCode(f[3])
		if len(f) > 4 {
			info.Reason = noneEmpty(f[4])
		}
		return info, true
	}
	return jobInfo{}, false
}

// parseScontrol reads one `scontrol show job -o` line of Key=Value pairs.
func parseScontrol(out string) (jobInfo, bool) {
	info := jobInfo{Source: "scontrol"}
	found := false
	for field := range strings.FieldsSeq(out) {
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			continue
		}
		switch k {
		case "JobId":
			info.ID = v
		case "JobState":
			info.State, found = stateWord(v), true
		case "Reason":
			info.Reason = noneEmpty(v)
		case "NodeList":
			info.Node = noneEmpty(v)
		case "ExitCode":
			info.ExitCode, info.Signal = parseExitCode(v)
		}
	}
	return info, found
}

// stateWord keeps the first word: sacct says "CANCELLED by 0".
func stateWord(s string) JobState {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return JobState(strings.TrimSuffix(w, "+"))
}

// parseExitCode reads Slurm's "status:signal".
func parseExitCode(s string) (code, sig int) {
	a, b, _ := strings.Cut(strings.TrimSpace(s), ":")
	code, _ = strconv.Atoi(a)
	sig, _ = strconv.Atoi(b)
	return code, sig
}

func noneEmpty(s string) string {
	s = strings.TrimSpace(s)
	if s == "None" || s == "(null)" || s == "(None)" {
		return ""
	}
	return s
}
