package engine_test

import (
	"kvparity/engine"
	"kvparity/engine/stages"
)

// engine's internal tests start stages through engine/stages (export_test.go's ctl).
func init() {
	engine.SetController(func(c *engine.Campaign) engine.Controller { return stages.New(c) })
}
