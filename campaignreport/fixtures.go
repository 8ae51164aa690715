package campaignreport

import (
	"fmt"
	"strings"

	"kvparity/engine/fixtures"
	"kvparity/verdict"
)

// Stage 6's forced lifecycle fixtures in the report: each fixture's result on each arm (its
// verdict, status and the lifecycle facts it asserted, with their numbers), and the coverage
// statement that says what they established, in place of "not part of this campaign" when the
// row declares them. A fixture result never changes a verdict.

// fixturesStatement is the "forced fixtures" coverage statement.
func (c *campaign) fixturesStatement(r *Report) statement {
	names := c.row.Fixtures.Names
	st := func(format string, a ...any) statement {
		return statement{Topic: "forced fixtures", Text: fmt.Sprintf(format, a...), md: mdf(format, a...)}
	}
	if len(names) == 0 {
		return st("stage 6 fixtures (single-worker queueing, scale-to-zero, backend handoff ordering) are not part of this campaign")
	}
	if len(r.Fixtures) == 0 {
		return st("the row declares the stage 6 fixtures %s but none has run yet (`kvparity run ROW --stage fixtures`): no forced lifecycle is claimed", strings.Join(names, ", "))
	}
	var asserted, failed, refused, missing []string
	done := map[string]bool{}
	for _, f := range r.Fixtures {
		done[f.Fixture+"/"+f.Arm] = true
		what := f.Fixture + " (" + f.Arm + ")"
		switch f.Verdict {
		case verdict.Pass:
			asserted = append(asserted, what)
		case verdict.Fail:
			failed = append(failed, what)
		default:
			refused = append(refused, fmt.Sprintf("%s: %s", what, f.Status))
		}
	}
	for _, n := range names {
		for _, arm := range []string{"baseline", "candidate"} {
			if !done[n+"/"+arm] {
				missing = append(missing, n+" ("+arm+")")
			}
		}
	}
	parts := []string{fmt.Sprintf("stage 6 fixtures asserted their lifecycle on %d of %d fixture runs", len(asserted), 2*len(names))}
	if len(failed) > 0 {
		parts = append(parts, "FAILED: "+strings.Join(failed, ", "))
	}
	if len(refused) > 0 {
		parts = append(parts, "not run, the harness cannot (see Stage 6 fixtures): "+strings.Join(refused, ", "))
	}
	if len(missing) > 0 {
		parts = append(parts, "not run yet: "+strings.Join(missing, ", "))
	}
	return st("%s; the fixtures' results decide no verdict of this report", strings.Join(parts, "; "))
}

// fixtures is the report's "Stage 6 fixtures" section (only for rows that declare them).
func (m *md) fixtures(r *Report) {
	if len(r.Fixtures) == 0 {
		return
	}
	m.h(2, "Stage 6 fixtures")
	m.p("Each fixture is a small deterministic trace with its own flags (engine/fixtures), run once per arm on its pinned binary in canonical mode; it asserts the lifecycle itself, not completion. Results decide no verdict above.")
	m.blank()
	m.head("fixture", "arm", "verdict", "status", "binary", "run")
	for _, f := range r.Fixtures {
		m.row(mdCode(f.Fixture), mdText(f.Arm), mdText(string(f.Verdict)), mdText(f.Status), mdText(f.Binary), mdCode(orNone(f.Run)))
	}
	for _, f := range r.Fixtures {
		m.blank()
		m.p("**%s** on the %s (%s, args %s):", mdText(f.Fixture), mdText(f.Arm), mdText(string(f.Verdict)), mdCode(strings.Join(f.Args, " ")))
		m.blank()
		if len(f.Facts) == 0 {
			m.p("- %s", mdText(f.Reason))
			continue
		}
		for _, x := range f.Facts {
			mark := "holds"
			if !x.Passed {
				mark = "**FAILS**"
			}
			m.p("- %s %s: %s", mdText(x.Name), mark, mdText(x.Why))
		}
	}
}

// fixtureResult is the Report's name for a fixture's result (model.go).
type fixtureResult = fixtures.Result
