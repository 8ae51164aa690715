package stages

import (
	"kvparity/engine"
	"kvparity/engine/investigate"
)

// Controller is a campaign as the workbench drives it: the campaign's own coordinating
// methods (Events, Info, StopStage, SetWatch, Close, ...) and the stages' starts.
type Controller struct{ *engine.Campaign }

var _ engine.Controller = Controller{}

// New is c as the workbench's Controller.
func New(c *engine.Campaign) Controller { return Controller{c} }

// StartInvestigation profiles both arms (stage 7, engine/investigate).
func (s Controller) StartInvestigation(equivalence string) error {
	return investigate.Start(s.Host(), equivalence)
}
