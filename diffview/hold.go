package diffview

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
)

// What a diff holds in detail. A diff keeps at most one Change per holdBytes bytes of its two
// inputs, and never fewer than minHold. A real pair differs in about one pointer per 180
// input bytes even when every request moved, so it is held whole. A flood (millions of
// differing elements of one array, one per 2 bytes) would otherwise hold 160 bytes of change,
// pointer, group and event per 2 bytes of input. Past the bound the diff walks again and
// holds at most a quota of changes per array, the largest quota under which the bound
// holds: every array that differs in fewer places is held whole, so a flood in one array
// hides neither the configuration nor the requests from the groups, the first divergence
// and the diagnosis. Every pointer is still counted, and AllPointers walks them all again,
// so the count, the JSON pointers, the field patterns and exception coverage never read a
// sample.
const holdBytes = 64

// minHold is the smallest bound (a variable so a test can make a small diff overflow it).
var minHold = 1 << 18

func holdFor(a, b *Doc) int { return max(minHold, (len(a.text)+len(b.text))/holdBytes) }

// quotaFor is the largest per-array quota q with the sum over arrays of min(changes, q)
// within hold (at least 1).
func quotaFor(perArray map[int32]int, hold int) int {
	cs := slices.Sorted(maps.Values(perArray))
	left := hold
	for i, c := range cs {
		if share := left / (len(cs) - i); c > share {
			return max(1, share)
		}
		left -= c
	}
	return max(1, hold)
}

// tally counts a change of array arr.
func (df *differ) tally(arr int32) {
	df.counted++
	if df.perArray != nil {
		df.perArray[arr]++
	}
}

// holding says whether the walk still holds a change of array arr.
func (df *differ) holding(arr int32) bool {
	if df.quota > 0 && df.heldIn[arr] >= df.quota {
		return false
	}
	return df.held < df.hold // also under a quota: more arrays may differ than hold allows
}

// keep decides whether the change at hand is held in detail, and counts it if so.
func (df *differ) keep() bool {
	if !df.holding(df.arr) {
		return false
	}
	df.held++
	if df.quota > 0 {
		df.heldIn[df.arr]++
	}
	return true
}

// Truncated reports whether the diff holds fewer changes in detail than differ.
func (d *Diff) Truncated() bool { return len(d.Changes) < d.Count }

// AllPointers yields every differing pointer in document order.
func (d *Diff) AllPointers() iter.Seq[string] {
	return func(yield func(string) bool) {
		for p := range d.allPointers() {
			if !yield(p) {
				return
			}
		}
	}
}

// allPointers yields every differing pointer with its index in Changes (-1: not held): the
// held changes when they are all, else a walk of both documents that holds what the diff's
// own walk held and keeps nothing.
func (d *Diff) allPointers() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		if !d.Truncated() {
			for i := range d.Changes {
				if !yield(d.Changes[i].Pointer, i) {
					return
				}
			}
			return
		}
		df := newDiffer(d.DocA, d.DocB, d.aligned)
		df.hold, df.quota, df.heldIn, df.visit = d.hold, d.quota, map[int32]int{}, yield
		// The diff's own walk of these documents succeeded, and this one repeats it (the
		// same alignments, the same hold): anything else is a bug, said loudly rather than
		// read as fewer differing pointers.
		err := df.value(0, 0)
		switch {
		case errors.Is(err, errStopped):
		case err != nil:
			panic(fmt.Sprintf("diffview: a second walk of %s and %s failed: %v", d.DocA.name, d.DocB.name, err))
		case df.counted != d.Count || df.held != len(d.Changes):
			panic(fmt.Sprintf("diffview: a second walk of %s and %s met %d pointers (%d held), the diff %d (%d held)",
				d.DocA.name, d.DocB.name, df.counted, df.held, d.Count, len(d.Changes)))
		}
	}
}

// Pointers lists every differing pointer in document order.
func (d *Diff) Pointers() []string { return slices.Collect(d.AllPointers()) }

func truncationNote(d *Diff) string {
	return fmt.Sprintf("%d differing pointers: the diff holds %d in detail (one per %d input bytes, at least %d), "+
		"at most %d in any one array; groups, the first divergence and the diagnosis read those, "+
		"while the count, the JSON pointers, the field patterns and exception coverage read every one",
		d.Count, len(d.Changes), holdBytes, minHold, d.quota)
}
