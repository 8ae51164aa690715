package engine

import (
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	for in, want := range map[string]string{
		"crate:dynamo-bench@1.6.1":                    "dynamo-bench@1.6.1",
		"git:/src/dynamo@" + strings.Repeat("ab", 20): strings.Repeat("ab", 20),
		"git:/src/dynamo@main":                        "main", // a ref: the campaign pins its commit
		"git:../dynamo@v1.6.1":                        "v1.6.1",
		"git:/src/dynamo@HEAD":                        "HEAD",
		"git:/src/dynamo@abc123":                      "abc123",
		"git:/src/dynamo@feature/router-tiebreak":     "feature/router-tiebreak",
		"worktree:../dynamo":                          "worktree of ../dynamo",
	} {
		s, err := ParseSource(in)
		if err != nil || s.Revision() != want || s.String() != in {
			t.Errorf("%s: %+v %v", in, s, err)
		}
	}
	for in, msg := range map[string]string{
		"crate:dynamo-bench":            "crate:NAME@EXACT.VERSION",
		"crate:dynamo-bench@^1.6":       "crate:NAME@EXACT.VERSION",
		"git:/src/dynamo":               "git:PATH@REF (a branch, tag, HEAD, or a short or full commit SHA)",
		"git:/src/dynamo@main..HEAD":    "git:PATH@REF",
		"git:/src/dynamo@-x":            "git:PATH@REF",
		"worktree:":                     "worktree:PATH",
		"worktree:/src/dynamo@main":     "for a commit use git:PATH@REF",
		"/path/to/offline_replay_bench": "use crate:NAME@VERSION, git:PATH@REF or worktree:PATH",
	} {
		if _, err := ParseSource(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", in, err, msg)
		}
	}
	if s, _ := ParseSource("worktree:rel/dynamo"); s.WithBaseDir("/rows").Repo != "/rows/rel/dynamo" {
		t.Error("a worktree's relative path is not resolved against the row's folder")
	}
}

func TestRowWithSourceArms(t *testing.T) {
	base := `name = "r"
[baseline]
%s
[candidate]
source = "crate:dynamo-bench@1.6.1"
features = ["replay-bench"]
[trace]
path = "t.jsonl"
count = 10
[replay]
args = []
`
	for arm, msg := range map[string]string{
		`source = "crate:dynamo-bench@1.5.1"` + "\n" + `features = ["replay-bench"]` + "\n" + `binary = "/x"`: "[baseline] binary: give a binary or a source, not both",
		`source = "crate:dynamo-bench@1.5.1"`: "[baseline] features: missing",
		`source = "crate:dynamo-bench@1.5.1"` + "\n" + `features = ["replay-bench"]` + "\n" + `revision = "0123456789abcdef"`: "disagrees with the source, which pins dynamo-bench@1.5.1",
		`source = "crate:dynamo-bench"` + "\n" + `features = ["replay-bench"]`:                                                "[baseline] source:",
		`source = "crate:dynamo-bench@1.5.1"` + "\n" + `features = ["replay-bench"]` + "\n" + `variant = "slowdown-10"`:       "[baseline] variant: a source-built baseline is the published code itself",
	} {
		_, err := ParseRow([]byte(strings.Replace(base, "%s", arm, 1)), "row.toml")
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", arm, err, msg)
		}
	}
	r, err := ParseRow([]byte(strings.Replace(base, "%s", `source = "crate:dynamo-bench@1.5.1"`+"\n"+`features = ["replay-bench"]`, 1)), "row.toml")
	if err != nil || !r.Baseline.FromSource() || r.Baseline.Binary != "" {
		t.Fatalf("%+v %v", r, err)
	}
	// A source-built candidate takes a calibrated slowdown, and nothing else.
	slow := strings.Replace(base, `features = ["replay-bench"]
[trace]`, `features = ["replay-bench"]
variant = "%v"
[trace]`, 1)
	slow = strings.Replace(slow, "%s", `source = "crate:dynamo-bench@1.6.1"`+"\n"+`features = ["replay-bench"]`, 1)
	if r, err := ParseRow([]byte(strings.Replace(slow, "%v", "slowdown-10", 1)), "row.toml"); err != nil || r.Candidate.Variant != "slowdown-10" {
		t.Errorf("slowdown-10 candidate: %v", err)
	} else if bs, err := buildSpec(r.Candidate); err != nil || bs.Variant.SlowdownPct != 10 {
		t.Errorf("build spec %+v %v", bs, err)
	}
	if _, err := ParseRow([]byte(strings.Replace(slow, "%v", "leak-wallclock", 1)), "row.toml"); err == nil ||
		!strings.Contains(err.Error(), `row.toml: [candidate] variant: "leak-wallclock": a source-built arm takes only slowdown-PCT`) {
		t.Errorf("leak variant on a source arm: %v", err)
	}
	// The frozen row keeps the source (campaigns are re-created from row.toml).
	b, _ := r.Encode()
	if !strings.Contains(string(b), `source = "crate:dynamo-bench@1.5.1"`) {
		t.Errorf("frozen row:\n%s", b)
	}
}
