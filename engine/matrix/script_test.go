package matrix

import (
	"strings"
	"testing"
)

func TestJobScriptRender(t *testing.T) {
	js := jobScript{Row: "vllm-disagg", RowFile: "/shared/rows/vllm disagg.toml", RowDir: "/shared/m/vllm-disagg",
		Binary: "/shared/m/kvparity", Partition: "gpu", RunArgs: []string{"--cpus", "2-3"}}
	got := string(js.render())
	want := []string{
		"#!/bin/sh\n",
		"#SBATCH --job-name=kvparity-vllm-disagg\n",
		"#SBATCH --nodes=1\n",
		"#SBATCH --exclusive\n",
		"#SBATCH --no-requeue\n",
		"#SBATCH --output=/shared/m/vllm-disagg/slurm-%j.out\n",
		"#SBATCH --chdir=/shared/m/vllm-disagg\n",
		"#SBATCH --partition=gpu\n",
		"/shared/m/kvparity matrix --record-placement /shared/m/vllm-disagg || exit 3\n",
		"\n/shared/m/kvparity run '/shared/rows/vllm disagg.toml' --campaign /shared/m/vllm-disagg --cpus 2-3\nstatus=$?\n",
		"/shared/m/kvparity report /shared/m/vllm-disagg\nexit $status\n",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("script lacks %q:\n%s", w, got)
		}
	}
	if !strings.HasPrefix(got, "#!/bin/sh\n#SBATCH") {
		t.Errorf("#SBATCH lines must directly follow the shebang:\n%s", got)
	}
	// The placement is recorded before kvparity run starts; the report is written after it.
	if !(strings.Index(got, "--record-placement") < strings.Index(got, " run ") && strings.Index(got, " run ") < strings.Index(got, " report ")) {
		t.Error("placement, run, report: in this order")
	}
	if strings.Contains(string(jobScript{Row: "r", RowFile: "/r.toml", RowDir: "/m/r", Binary: "/m/kvparity"}.render()), "--partition") {
		t.Error("no partition line without a partition")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b-c_d.toml": "/a/b-c_d.toml",
		"":              "''",
		"a b":           "'a b'",
		"it's":          `'it'\''s'`,
		"$(rm -rf /)":   "'$(rm -rf /)'",
		"x;y":           "'x;y'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
