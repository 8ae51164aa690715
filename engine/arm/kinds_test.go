package arm

import (
	"slices"
	"strings"
	"testing"
)

// Each table is claimed by the kind it names, and a source no kind claims is refused in
// engine/build's words.
func TestOfClaimsEachTableOnce(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Binary: "builtin"}, "builtin"},
		{Spec{Binary: "/opt/offline_replay_bench"}, "binary"},
		{Spec{}, "binary"}, // its Check says the binary is missing
		{Spec{Source: "crate:dynamo-bench@1.6.1"}, "crate"},
		{Spec{Source: "git:../dynamo@main"}, "git"},
		{Spec{Source: "worktree:../dynamo"}, "worktree"},
		{Spec{Source: "crate:x", Binary: "builtin"}, "crate"}, // its Check refuses both
	} {
		var claims []string
		for _, k := range kinds {
			if k.Claims(c.spec) {
				claims = append(claims, k.Name())
			}
		}
		k, err := Of(c.spec)
		if err != nil || k.Name() != c.want || len(claims) != 1 {
			t.Errorf("%+v: kind %v (%v), claimed by %v, want %s", c.spec, k, err, claims, c.want)
		}
	}
	if _, err := Of(Spec{Source: "pypi:kv-harness@1.0"}); err == nil || !strings.Contains(err.Error(), "use crate:NAME@VERSION, git:PATH@REF or worktree:PATH") {
		t.Errorf("unknown kind: %v", err)
	}
}

// The argv of a run, as the campaign has always started it: the embedded engine's replay
// subcommand, variant and progress file; a given or built binary's bench flags alone.
func TestArgvOfEachKind(t *testing.T) {
	p := Process{Trace: "w.jsonl", Args: []string{"--num-workers", "2"}, Outputs: benchOutputs("r"), Variant: "leak-tz"}
	p.Outputs.Progress = "r/progress.jsonl"
	bench := []string{"w.jsonl", "--num-workers", "2", "--iterations", "1", "--timings-jsonl", "r/timings.jsonl", "--canonical-reports-jsonl", "r/canonical.jsonl"}
	want := map[Kind][]string{
		builtinKind{}:  append(append([]string{"replay"}, bench...), "--variant", "leak-tz", "--progress-file", "r/progress.jsonl"),
		Binary{}:       bench,
		crateKind{}:    bench,
		gitKind{}:      bench,
		worktreeKind{}: bench,
	}
	for k, w := range want {
		if got := k.Argv(p); !slices.Equal(got, w) {
			t.Errorf("%s: argv %q, want %q", k.Name(), got, w)
		}
	}
	// A fixture's run: its canonical report only.
	f := Process{Trace: "t.jsonl", Outputs: Outputs{Canonical: "r/canonical.jsonl"}}
	if got := (builtinKind{}).Argv(f); !slices.Equal(got, []string{"replay", "t.jsonl", "--iterations", "1", "--canonical-reports-jsonl", "r/canonical.jsonl"}) {
		t.Errorf("fixture argv %q", got)
	}
	if o := (builtinKind{}).Outputs("r"); o.Progress != "r/progress.jsonl" || o.Canonical != "r/canonical.jsonl" || o.Timings != "r/timings.jsonl" {
		t.Errorf("builtin outputs %+v", o)
	}
	if o := (gitKind{}).Outputs("r"); o.Progress != "" {
		t.Errorf("a built binary has no progress side channel: %+v", o)
	}
}
