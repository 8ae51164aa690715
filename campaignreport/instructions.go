package campaignreport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"kvparity/engine/instrument"
	"kvparity/internal/layout"
)

// The instruction counts a row's report states. kvparity matrix on Slurm counts a row's
// instructions in a job of their own, on another node, in a campaign of their own nested in the
// row's folder (layout.DirInstructions: DIR/ROW/instructions), while the row's job runs
// `kvparity run --no-instructions`. The row's report states the row campaign's own result when
// it has one; else the nested campaign's, when that campaign counted exactly what the row
// measures: the same artifacts (SHA-256 and variant, per arm, against the row's current pins),
// the same trace window and the same frozen row. Counts of anything else are not stated as the
// row's, and the report says why.

// instructions is the result the report states (nil: not counted), where it was counted when
// not in this campaign (the nested campaign's folder, relative to this one; "" here), and why a
// nested campaign's counts were not used ("" when there is none to use or they were).
func (c *campaign) instructions() (res *instrument.InstructionResult, from, note string) {
	if res := c.hist.Instructions(); res != nil {
		return res, "", ""
	}
	if why := c.hist.InstructionsFailure(); why != "" {
		return nil, "", "the last count gave no figure: " + why
	}
	rel := layout.DirInstructions
	dir := filepath.Join(c.dir, rel)
	if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err != nil {
		if _, derr := os.Stat(dir); derr == nil && errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Sprintf("the instruction counts' own job has not created their campaign %s/ yet", rel)
		}
		return nil, "", ""
	}
	n, err := load(dir)
	if err != nil {
		return nil, "", fmt.Sprintf("the instruction counts' campaign %s/ cannot be read: %v", rel, err)
	}
	res = n.hist.Instructions()
	if res == nil {
		return nil, "", fmt.Sprintf("the instruction counts' campaign %s/ has no result yet (counting, blocked, or valgrind missing on its node: see %s/report.md)", rel, rel)
	}
	if why := c.countedOther(n); why != "" {
		return nil, "", fmt.Sprintf("the counts of the campaign %s/ are not used: %s", rel, why)
	}
	return res, rel, ""
}

// countedOther says how the campaign n counted something other than what c measures: other
// artifacts (SHA-256 or variant of an arm's current pin), another trace window or another frozen
// row. "" when n counted exactly c's.
func (c *campaign) countedOther(n *campaign) string {
	for _, arm := range arms {
		mine, theirs := c.hist.Current[arm], n.hist.Current[arm]
		if mine.SHA256 != theirs.SHA256 || mine.Variant != theirs.Variant {
			return fmt.Sprintf("they counted other artifacts (%s: %s; this campaign's current pin: %s)",
				arm, artifactName(theirs.SHA256, theirs.Variant), artifactName(mine.SHA256, mine.Variant))
		}
	}
	if c.trace.WindowSHA256 != n.trace.WindowSHA256 {
		return fmt.Sprintf("they replayed another trace window (SHA-256 %s; this campaign's: %s)", short(n.trace.WindowSHA256), short(c.trace.WindowSHA256))
	}
	if c.rowSHA != n.rowSHA {
		return fmt.Sprintf("they ran another frozen row (row.toml SHA-256 %s; this campaign's: %s)", short(n.rowSHA), short(c.rowSHA))
	}
	return ""
}

// artifactName is a pin as the instruction note names it: its SHA-256 prefix and variant.
func artifactName(sha, variant string) string {
	s := "sha256 " + short(sha)
	if sha == "" {
		s = "not pinned"
	}
	if variant != "" {
		s += " variant " + variant
	}
	return s
}

// rowInstructions is the instruction result a row's report states, read from the row's
// campaign folder (nil, "" while the row has no readable campaign): the matrix report's
// figure, computed the same way as the row's report.
func rowInstructions(dir string) (*instrument.InstructionResult, string) {
	if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err != nil {
		return nil, ""
	}
	c, err := load(dir)
	if err != nil {
		return nil, ""
	}
	res, from, _ := c.instructions()
	return res, from
}
