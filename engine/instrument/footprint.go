package instrument

import (
	"fmt"

	"kvparity/verdict"
)

// The footprint gate (protocol stage 7): release binary or .text growth above 5% fails until the
// added footprint is explained (and narrowed); the row states the explanation in
// [perf] footprint_explained, and the result carries it.

// footprintLimit is the largest allowed growth of binary or .text size, as a fraction.
const footprintLimit = 0.05

// FootprintResult compares the candidate's artifact with the baseline's.
type FootprintResult struct {
	Key           string  `json:"key,omitempty"`
	BaselineSize  int64   `json:"baseline_size"`
	CandidateSize int64   `json:"candidate_size"`
	SizeGrowth    float64 `json:"size_growth"` // candidate/baseline − 1
	BaselineText  int64   `json:"baseline_text"`
	CandidateText int64   `json:"candidate_text"`
	TextGrowth    float64 `json:"text_growth"` // 0 when either has no .text (not ELF)
	TextKnown     bool    `json:"text_known"`
	// Shipped says the size compared is the binaries without debug sections (BaselineShipped,
	// CandidateShipped); BaselineSize and CandidateSize stay the files' own sizes.
	Shipped          bool         `json:"shipped,omitempty"`
	BaselineShipped  int64        `json:"baseline_shipped_size,omitempty"`
	CandidateShipped int64        `json:"candidate_shipped_size,omitempty"`
	Limit            float64      `json:"limit"`
	Explained        string       `json:"explained,omitempty"`
	Verdict          verdict.Word `json:"verdict"` // PASS or FAIL
	Reason           string       `json:"reason"`
}

// A Binary is what the footprint gate knows of an arm's pinned artifact: the file's size, its
// size without debug sections (0 when unknown) and its .text size (0 when not ELF).
type Binary struct {
	Size, ShippedSize, TextSize int64
}

// DecideFootprint compares the candidate's binary with the baseline's; explained is the row's
// [perf] footprint_explained.
func DecideFootprint(base, cand Binary, explained string) FootprintResult {
	f := FootprintResult{BaselineSize: base.Size, CandidateSize: cand.Size, BaselineText: base.TextSize,
		CandidateText: cand.TextSize, Limit: footprintLimit, Explained: explained}
	// What users ship: the binaries without debug sections, when both pins know that size
	// (the files' own sizes stay recorded beside them).
	baseSize, candSize, what := base.Size, cand.Size, "binary"
	if base.ShippedSize > 0 && cand.ShippedSize > 0 {
		f.Shipped, f.BaselineShipped, f.CandidateShipped = true, base.ShippedSize, cand.ShippedSize
		baseSize, candSize, what = base.ShippedSize, cand.ShippedSize, "binary without debug sections"
	}
	if baseSize > 0 {
		f.SizeGrowth = float64(candSize)/float64(baseSize) - 1
	}
	f.TextKnown = base.TextSize > 0 && cand.TextSize > 0
	if f.TextKnown {
		f.TextGrowth = float64(cand.TextSize)/float64(base.TextSize) - 1
	}
	text := ".text size unknown (not ELF)"
	if f.TextKnown {
		text = fmt.Sprintf(".text %+.2f%% (%d → %d bytes)", 100*f.TextGrowth, base.TextSize, cand.TextSize)
	}
	figures := fmt.Sprintf("%s %+.2f%% (%d → %d bytes), %s", what, 100*f.SizeGrowth, baseSize, candSize, text)
	if f.Shipped {
		figures += fmt.Sprintf("; with debug sections %d → %d bytes", base.Size, cand.Size)
	}
	grew := f.SizeGrowth > footprintLimit || f.TextGrowth > footprintLimit
	switch {
	case !grew:
		f.Verdict, f.Reason = verdict.Pass, figures+fmt.Sprintf(": within %.0f%%", 100*footprintLimit)
	case explained != "":
		f.Verdict, f.Reason = verdict.Pass, figures+fmt.Sprintf(": above %.0f%% but explained in the row: %s", 100*footprintLimit, explained)
	default:
		f.Verdict, f.Reason = verdict.Fail, figures+fmt.Sprintf(": grows more than %.0f%%; explain and narrow it ([perf] footprint_explained)", 100*footprintLimit)
	}
	return f
}
