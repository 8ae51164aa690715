// Package ui is the Bubble Tea workbench: a root model that routes messages and focus, and
// one model per pane (header, artifacts, determinism, lifecycle, pressure, performance, log,
// diff).
package ui
