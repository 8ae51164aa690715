package driver

import (
	"context"
	"os"
	"path/filepath"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// A Campaign is one campaign a driver runs to its report.
type Campaign struct {
	Row     *engine.Row
	Options engine.Options // Context is set to Run's ctx when nil
	// Pump reads the campaign's events until the channel closes (after the stages, when the
	// campaign is closed); Run returns only once Pump has returned. Nil drops them (the
	// journal keeps what they say).
	Pump func(events <-chan engine.Event)
	// Stages starts the stages the driver asks for on the open campaign and waits for them.
	// An error ends Run with it, unassessed (the journal keeps the finished runs: the
	// campaign resumes). Nil runs nothing (the report of what the campaign recorded).
	Stages func(c *engine.Campaign) error
	// Report is what the campaign ends with: its verdicts assessed (the zero value), its
	// report written, or nothing (a driver that keeps its own record).
	Report Report
	// Warn hears a report that could not be written; nil drops it.
	Warn func(error)
}

// A Report is what Run makes of the campaign once its stages ended.
type Report int

const (
	// Assess: the verdicts the report states (campaignreport.Assess), nothing written.
	Assess Report = iota
	// Write: the campaign's report written (campaignreport.WriteReport) and the verdicts read
	// from it, so it is built once. Not when ctx is done (an interrupted campaign's report is
	// written when it resumes) nor for a campaign without a journal; a report that cannot be
	// written is said to Warn, and the verdicts are assessed instead.
	Write
	// None: no verdicts (kvparity qualify keeps its own record: result.json, the frozen row).
	None
)

// Where Run failed, in an Error.
const (
	StepOpen   = "open"   // the campaign could not be opened or created
	StepAssess = "assess" // its report's verdicts could not be computed
)

// An Error is Run's own failure at one step (a Stages error is returned as it is). Its text is
// the failure's, so a driver may print it as it printed the failure before.
type Error struct {
	Step string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Run opens (or resumes) the campaign, runs its stages, closes it and returns its directory
// and the verdicts its report states (none with Report None).
func Run(ctx context.Context, k Campaign) (dir string, v verdict.Verdicts, err error) {
	opts := k.Options
	if opts.Context == nil {
		opts.Context = ctx
	}
	c, err := engine.OpenOrCreate(k.Row, opts)
	if err != nil {
		return "", v, &Error{Step: StepOpen, Err: err}
	}
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		if k.Pump != nil {
			k.Pump(c.Events())
			return
		}
		for range c.Events() {
		}
	}()
	if k.Stages != nil {
		err = k.Stages(c)
	}
	c.Close()
	<-pumped
	dir = c.Dir()
	if err != nil {
		return dir, v, err
	}
	if k.Report == None {
		return dir, v, nil
	}
	if k.Report == Write && ctx.Err() == nil {
		if _, serr := os.Stat(filepath.Join(dir, layout.FileJournal)); serr == nil {
			r, werr := campaignreport.WriteReport(dir)
			if werr == nil {
				return dir, r.Verdicts(), nil
			}
			if k.Warn != nil {
				k.Warn(werr)
			}
		}
	}
	if v, err = campaignreport.Assess(dir); err != nil {
		return dir, v, &Error{Step: StepAssess, Err: err}
	}
	return dir, v, nil
}
