// Package qualifyview is the qualify view: stage 3's capacity search live (kvparity qualify
// --view). It shows the search's settings (row, flag, seed, band), every probe as it ends in the
// order it ran (purpose, arm, capacity, pressure count, class, readmitted, completed, virtual
// end, time), the probe running now, the probes on a capacity ladder (flood and above, in band,
// below, stalled) and the outcome with its reason. It is a standalone Bubble Tea v2 model fed
// by the qualify driver's progress (kvparity/qualify: Run) through a Feed. It imports engine for the probe's run event,
// engine/qualify for the probes and the result, qualify (the driver) for the progress values, and ui/*
// (keys, pane, text, theme) for its keys, feed, text and palette.
//
//	feed.go   Feed: the qualification's progress folded into snapshots for the program
//	model.go  Model: keys, scrolling, the end
//	view.go   render
package qualifyview
