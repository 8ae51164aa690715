// Package bisectview is the bisect view: the commit range of a kvparity bisect, newest first,
// each commit's state live (untried, building, running its probe campaign, good, bad,
// skipped), the range the first bad commit can still be in, and the result. It is a
// standalone Bubble Tea v2 model (kvparity bisect --view) fed by the bisect driver's Progress
// through a Feed; enter opens a judged commit's probe campaign through a callback the caller
// injects (the view knows nothing of the workbench). It imports bisect (the driver) for the
// bisect's values, engine for the probe campaigns' events, verdict for their words and ui/*
// (keys, text, theme) for its keys, text and palette.
//
//	state.go  snapshot: the bisect folded from its Progress, the snapshot the view draws
//	feed.go   Feed: snapshots from bisect.Run's goroutine to the program
//	model.go  Model: keys, selection, the end
//	view.go   Render
package bisectview
