package campaignreport_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/engine/instructions"
	"kvparity/engine/investigate"
	"kvparity/engine/perf"
	"kvparity/headless"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// A row of desk builds (issue 44): the performance stage is blocked, journaled, naming the
// desk build; and every surface — report.md, summary.md, report.json, the headless document
// and the workbench's campaign info — says the arms are a desk build, not the release artifact;
// the instruction counts and the investigation's profiles refuse it.
func TestADeskRowSaysSoEverywhereAndIsNeverTimed(t *testing.T) {
	dir, builds := sourceBuiltCampaignProfile(t, build.ProfileDesk)
	for arm, b := range builds {
		if !b.Desk() {
			t.Fatalf("%s: %+v is not a desk build", arm, b)
		}
	}
	c, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Events() {
		}
	}()
	if info := c.Info(); info.DeskBuild != build.DeskNote {
		t.Errorf("campaign info (the workbench's header) desk %q", info.DeskBuild)
	}
	if err := instructions.Start(c.Host(), 1); !errors.Is(err, engine.ErrDeskBuild) {
		t.Errorf("instruction counts on a desk row: %v", err)
	}
	if err := investigate.Start(c.Host(), "test"); !errors.Is(err, engine.ErrDeskBuild) {
		t.Errorf("profiles of a desk row: %v", err)
	}
	if err := perf.Start(c.Host()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	c.Close()

	r, err := campaignreport.WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.DeskBuild != build.DeskNote || r.Performance.Verdict != verdict.Blocked || !strings.Contains(r.Performance.Reason, build.DeskNote) ||
		r.Overall.Verdict != verdict.Blocked {
		t.Fatalf("report: desk %q, performance %+v, overall %+v", r.DeskBuild, r.Performance.Outcome, r.Overall)
	}
	md, _ := os.ReadFile(filepath.Join(dir, layout.FileReportMD))
	mustContain(t, md, "**Desk build, not the release artifact.** Both arms were built with the desk profile")
	sum, _ := os.ReadFile(filepath.Join(dir, layout.FileSummaryMD))
	mustContain(t, sum, "> **Desk build, not the release artifact.**")
	var doc struct {
		Desk string `json:"desk_build"`
	}
	js, _ := os.ReadFile(filepath.Join(dir, layout.FileReportJSON))
	if json.Unmarshal(js, &doc) != nil || doc.Desk != build.DeskNote {
		t.Errorf("report.json desk_build %q", doc.Desk)
	}
	c, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Events() {
		}
	}()
	s := c.Summary()
	c.Close()
	hd, err := headless.Assess(dir, "all", s)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	hd.Write(&text, false)
	if hd.DeskBuild != build.DeskNote || !strings.Contains(text.String(), build.DeskNote+": both arms built with the desk profile") {
		t.Errorf("headless: desk %q\n%s", hd.DeskBuild, text.String())
	}
}
