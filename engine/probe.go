package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"kvparity/report"
)

// Probes are the host seam of a stage that runs an arm at a configuration the row does not
// hold yet: stage 3's qualification (engine/qualify) probes one capacity at a time. A probe is
// one canonical run of the arm's pinned artifact in its own process, with one replay flag's
// value replaced, journaled like any run (run_start and run_end, kind "probe", the flag and
// value as the run's payload) and read like a repetition (digest, evidence). A probe already
// recorded for the same arm, generation, purpose, index and value is returned from the journal
// instead of being run again, so a killed qualification resumes where it stopped.

// StageQualify is stage 3's qualification (events and journal).
const StageQualify Stage = "qualify"

// KindProbe is one qualification probe.
const KindProbe RunKind = "probe"

// A ProbeRequest is one probe: Arm's current artifact with the row's args, Flag's value
// replaced by Value.
type ProbeRequest struct {
	Arm   Arm    `json:"arm"`
	Flag  string `json:"flag"`  // e.g. --num-gpu-blocks
	Value int    `json:"value"` // the probed capacity
	// Purpose says why the probe ran: "search", "confirm" (a fresh repetition of the chosen
	// value), "candidate" (the candidate run once at the chosen value).
	Purpose string `json:"purpose"`
	Index   int    `json:"index"` // 1-based within its purpose
	// Timeout bounds the run (0: the row's [determinism] timeout). Not part of the probe's
	// identity: a recorded probe is reused whatever timeout it ran under.
	Timeout time.Duration `json:"-"`
}

// A ProbeRun is a recorded probe: its request and what the run gave. Its run_end's payload
// is the request; the rest are the run record's own fields.
type ProbeRun struct {
	ProbeRequest
	Run          RunID            `json:"run"`
	Gen          int              `json:"gen"`
	Digest       string           `json:"digest,omitempty"`
	EvidencePath string           `json:"evidence_path,omitempty"` // relative to the campaign
	Evidence     *report.Evidence `json:"-"`                       // read from EvidencePath
	ElapsedMs    float64          `json:"elapsed_ms"`
	TimedOut     bool             `json:"timed_out,omitempty"`
	Error        string           `json:"error,omitempty"`  // the run failed (a timeout says so too)
	Reused       bool             `json:"reused,omitempty"` // read back from the journal, not run now
}

// probeState is the journal's view of the probes, in the order they ended.
type probeState struct{ runs []ProbeRun }

// probes is the fold's probe state, kept under its run kind's name: probes have no record type
// of their own (they are run_end records of KindProbe).
func probes(h *History) *probeState { return kindState[probeState](h, RecordType(KindProbe)) }

func init() {
	defineRunData(RecRunEnd, []RunKind{KindProbe}, func(h *History, r *Record, d *ProbeRequest) {
		s := probes(h)
		s.runs = append(s.runs, ProbeRun{ProbeRequest: *d, Run: r.Run, Gen: r.Gen, Digest: r.Digest, EvidencePath: r.Evidence,
			ElapsedMs: r.ElapsedMs, TimedOut: r.TimedOut, Error: r.Error})
	})
}

// Probes is every recorded probe, in the order they ended (Evidence not read).
func (h *History) Probes() []ProbeRun { return slices.Clone(probes(h).runs) }

// StartStage runs a stage package's work as the campaign's one running stage: journaled
// (stage_start, stage_end), announced (StageStarted, StageStopped), stopped by StopStage or
// Interrupt through ctx; fn reports whether it was cancelled. The arms are prepared first (a
// rebuilt source re-pinned, every pinned copy and the trace window verified): a failure blocks
// the stage naming why, and fn does not run.
func (c *Campaign) StartStage(st Stage, fn func(ctx context.Context) (cancelled bool)) error {
	return c.startStage(st, func(ctx context.Context) bool {
		if err := c.arms.prepare(); err != nil {
			campaignHost{c}.Block(st, err.Error())
			return false
		}
		return fn(ctx)
	})
}

// RunProbe runs one probe (or returns the journal's record of it) and records it. The error
// is a failure to run or record at all (a full disk, a cancelled stage); a replay that fails
// is a ProbeRun with its Error.
func (h campaignHost) RunProbe(ctx context.Context, req ProbeRequest) (ProbeRun, error) {
	c := h.c
	if req.Arm != Baseline && req.Arm != Candidate {
		return ProbeRun{}, fmt.Errorf("probe: no arm %q", req.Arm)
	}
	if c.row.ReplayArg(req.Flag) == "" {
		return ProbeRun{}, &RowError{File: h.rowFile(), Table: "replay", Key: "args", Msg: fmt.Sprintf("has no %s to probe (qualification varies a flag the row already sets)", req.Flag)}
	}
	gen := c.Pinned(req.Arm).Gen
	key := req
	key.Timeout = 0
	for _, p := range c.History().Probes() {
		if p.ProbeRequest == key && p.Gen == gen {
			p.Reused = true
			if p.EvidencePath != "" {
				p.Evidence = LoadEvidence(filepath.Join(c.dir, p.EvidencePath))
			}
			return p, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return ProbeRun{}, err
	}
	id := RunID(fmt.Sprintf("qualify/%s-%s-%d-%d", req.Arm, req.Purpose, req.Index, req.Value))
	if gen > 1 {
		id += RunID("-g" + strconv.Itoa(gen))
	}
	spec := campaignHost{c}.RunSpec(id, req.Arm, KindProbe, req.Index, 1, true)
	spec.Args = withFlag(spec.Args, req.Flag, strconv.Itoa(req.Value))
	spec.CPUs = c.cpus[:1]
	if req.Timeout > 0 && (spec.Timeout == 0 || req.Timeout < spec.Timeout) {
		spec.Timeout = req.Timeout
	}
	base := Record{Run: id, Arm: req.Arm, Kind: KindProbe, Index: req.Index, Attempt: 1, Gen: gen, Stage: StageQualify}
	res, startErr := campaignHost{c}.RecordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return ProbeRun{}, startErr
	}
	if res.Cancelled {
		c.emit(RunFinished{Run: id, Arm: req.Arm, Kind: KindProbe, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
		return ProbeRun{}, context.Cause(ctx)
	}
	end := EndRecord(base, res)
	pr := ProbeRun{ProbeRequest: req, Run: id, Gen: gen, ElapsedMs: end.ElapsedMs, TimedOut: res.TimedOut}
	runErr := res.Err
	var out RepOutput
	if runErr == nil {
		var err error
		out, err = campaignHost{c}.ReadRepetition(spec)
		var ioe errIO
		var rowErr *RowError
		if errors.As(err, &ioe) || errors.As(err, &rowErr) {
			return ProbeRun{}, err
		}
		runErr = err
	}
	if runErr != nil {
		end.Error, pr.Error = runErr.Error(), runErr.Error()
	} else {
		end.Digest, end.FixedPoint, end.ReportPath, end.Evidence = out.Digest, out.FixedPoint, out.ReportRel, out.EvidenceRel
		pr.Digest, pr.Evidence, pr.EvidencePath = out.Digest, out.Evidence, out.EvidenceRel
	}
	end.Data = MarshalData(key)
	if _, err := c.journal.Append(end); err != nil {
		return ProbeRun{}, err
	}
	campaignHost{c}.EmitEnd(end, out.Evidence)
	return pr, nil
}

// withFlag returns args with flag's value set to value ("--flag value" or "--flag=value").
func withFlag(args []string, flag, value string) []string {
	out := slices.Clone(args)
	switch i, joined := flagAt(out, flag); {
	case i < 0:
	case joined:
		out[i] = flag + "=" + value
	default:
		out[i+1] = value
	}
	return out
}

// QualifyBlock is why the qualification stage was blocked since it last started ("" when it
// was not): its arms could not be prepared, or a probe could not be recorded.
func (h *History) QualifyBlock() string { return h.blockOf(StageQualify) }
