package stages

import (
	"context"

	"kvparity/engine"
	"kvparity/engine/determinism"
	"kvparity/engine/instructions"
	"kvparity/engine/investigate"
	"kvparity/engine/perf"
)

// Controller is a campaign as the workbench drives it: the campaign's own coordinating
// methods (Events, Info, StopStage, Watching, Close, ...) and the stages' starts, each
// calling its stage package with the campaign as the stage's host.
type Controller struct{ *engine.Campaign }

var _ engine.Controller = Controller{}

// New is c as the workbench's Controller.
func New(c *engine.Campaign) Controller { return Controller{c} }

// StartDeterminism runs (or resumes) the determinism stage and byte parity (engine/determinism).
func (s Controller) StartDeterminism() error { return determinism.Start(s.Host()) }

// RerunRepetition reruns one repetition in a fresh process.
func (s Controller) RerunRepetition(id engine.RunID) error {
	return determinism.RerunRepetition(s.Host(), id)
}

// AddRepetition adds one repetition to an arm and runs it.
func (s Controller) AddRepetition(a engine.Arm) error { return determinism.AddRepetition(s.Host(), a) }

// SetWatch turns watch mode on or off; a rebuilt arm is re-pinned and the determinism stage
// rerun on it (and the instruction count after it: rerun).
func (s Controller) SetWatch(on bool) error { return s.Watch(on, s.rerun) }

// rerun is what a watched rebuild starts once its arm is re-pinned (the desk loop): the
// determinism stage, and once it has ended the instruction count of the new generation (for a
// row that declares instructions_runs). ctx is the watch's: its end makes the count moot.
func (s Controller) rerun(ctx context.Context) error {
	if err := s.StartDeterminism(); err != nil {
		return err
	}
	instructions.AfterDeterminism(ctx, s.Host(), s.Wait)
	return nil
}

// StartPerf runs (or resumes) the performance stage (engine/perf); refused while determinism is
// not STABLE on both arms' current artifacts.
func (s Controller) StartPerf() error { return perf.Start(s.Host()) }

// StartInvestigation profiles both arms (stage 7, engine/investigate).
func (s Controller) StartInvestigation(equivalence string) error {
	return investigate.Start(s.Host(), equivalence)
}
