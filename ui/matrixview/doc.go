// Package matrixview is the matrix view: one line per row of a matrix (node, job, stage and
// progress, verdicts), with enter opening the selected row through a callback the caller
// injects. It is a standalone Bubble Tea v2 model (kvparity matrix --view runs it on its own)
// that the workbench can also embed: Render draws the body into any box. It imports
// engine/matrix for the rows' matrix.RowStatus, verdict for their words and tones, and ui/*
// (keys, text, theme) for its keys, text and palette.
package matrixview
