package diffview

// For the external tests (package diffview_test), which read a held diff through the rooms
// that import diffview: the diagnosis and the exception records, which diffview's own tests
// cannot import.
var (
	MustDiff    = mustDiff
	FloodPair   = floodPair
	WithMinHold = withMinHold
)

// Quota is the diff's per-array hold (0: every change held).
func (d *Diff) Quota() int { return d.quota }
