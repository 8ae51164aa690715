// Package ui is the Bubble Tea workbench over a campaign (engine.Controller).
//
// The root Model routes and lays out; it owns focus, the status line, the footer and ? help,
// and frame pacing. Each pane is its own package with a value model (Update, View, SetSize,
// Focus, Blur, Focused): header, artifacts, determinism, lifecycle, pressure, perf and logpane;
// the diff pane and exception form come from package diffview/pane. Keys (ui/keys) and styles
// (ui/theme) are defined once, the diff pane's included.
//
// No pane hides a line silently: what does not fit is counted in its title or on its edge
// lines, with the key that shows it (z zooms the focused pane). The workbench keeps its own
// choices (the diff pane's grouping) in the campaign folder's ui-state.json, written
// atomically and never outside that folder; the report never reads it.
//
// Engine events arrive through one re-armed command that drains whatever is waiting into one
// message, so a burst costs one Update. Update never calls anything that may block: Controller
// calls run in commands that capture values. View returns the frame composed on the last paced
// tick: at most 30 frames a second, at most 4 while a measured sample runs.
//
// It imports engine for the Campaign it drives and the events it shows, the panes and helpers
// under ui/*, diffview for the sides and ids the diff slot names, verdict for the header's
// words and tones, and internal/atomicfile to write ui-state.json.
package ui
