package engine_test

import (
	"kvparity/engine"
	"kvparity/engine/perf"
	"kvparity/engine/stages"
)

// engine's internal tests start stages through engine/stages (export_test.go's ctl), and time
// perf pairs with engine/perf's Run (export_test.go's runPerf).
func init() {
	engine.SetController(func(c *engine.Campaign) engine.Controller { return stages.New(c) })
	engine.SetPerfRun(perf.Run)
}
