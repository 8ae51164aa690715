// Package qualify is protocol stage 3's qualification: it searches the capacity of a row (the
// G1 blocks, --num-gpu-blocks) on the pinned baseline for the row's pressure band, confirms
// the chosen capacity with fresh processes, runs the candidate once with exactly the same
// configuration (never tuned separately), and freezes the row with its probe table as a
// comment, the way Dynamo's golden points read.
//
// It runs inside a campaign through Host (the campaign's engine.StageHost): every probe is one
// process of the arm's pinned artifact, journaled by the engine (RunProbe), so a killed
// qualification resumes from its recorded probes. It imports engine for the row and the probes it runs, and report
// for a probe's lifecycle evidence (its pressure count and the flood rules).
//
// # Layout
//
//	search.go    the capacity search: Band, Class, Point, Search.Next (pure; unit-tested)
//	qualify.go   Run: search, edges, confirmation and the candidate; Result and its words
//	freeze.go    Freeze: the frozen row (capacity, band, probe table) parsed back before it is kept
//
// # Why a search and not a formula
//
// The pressure count does not fall monotonically with capacity: a larger cache changes which
// worker the router picks, so the golden points' own probes read 11, 14, 6 over 5,000, 5,500
// and 6,000 blocks. The search keeps to the nearest bracket and, when no multiple of its step
// inside the bracket gives the band, says so with the nearest probes instead of widening it.
package qualify
