package engine

// The stage packages import engine, so engine's own tests cannot import them: they drive a
// campaign through the Controller engine/stages makes of it (as the workbench does), which
// stages_test.go (package engine_test, which may import it) hands over before any test runs.
var newController func(*Campaign) Controller

// SetController hands the internal tests engine/stages' Controller.
func SetController(f func(*Campaign) Controller) { newController = f }

// ctl is c as the workbench drives it: its stages started by their packages.
func ctl(c *Campaign) Controller { return newController(c) }
