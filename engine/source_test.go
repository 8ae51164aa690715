package engine

import (
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	for in, want := range map[string]string{
		"crate:dynamo-bench@1.6.1":                    "dynamo-bench@1.6.1",
		"git:/src/dynamo@" + strings.Repeat("ab", 20): strings.Repeat("ab", 20),
	} {
		s, err := ParseSource(in)
		if err != nil || s.Revision() != want || s.String() != in {
			t.Errorf("%s: %+v %v", in, s, err)
		}
	}
	for in, msg := range map[string]string{
		"crate:dynamo-bench":            "crate:NAME@EXACT.VERSION",
		"crate:dynamo-bench@^1.6":       "crate:NAME@EXACT.VERSION",
		"git:/src/dynamo@main":          "never a branch",
		"git:/src/dynamo@abc123":        "40 lowercase hex digits",
		"/path/to/offline_replay_bench": "use crate:NAME@VERSION or git:PATH@COMMIT",
	} {
		if _, err := ParseSource(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", in, err, msg)
		}
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
	// The frozen row keeps the source (campaigns are re-created from row.toml).
	b, _ := r.Encode()
	if !strings.Contains(string(b), `source = "crate:dynamo-bench@1.5.1"`) {
		t.Errorf("frozen row:\n%s", b)
	}
}
