package matrix

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A matrix builds each source arm once before any job, so it names only sources that cannot
// move between the build and a job: a branch or a working tree is refused naming the row file,
// the arm and (for a branch) the commit to write instead. Nothing is built or run.
func TestMatrixRefusesSourcesThatMove(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := filepath.Join(t.TempDir(), "dynamo")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "x"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, _ := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	src := t.TempDir()
	rowText := func(candidate string) string {
		return `name = "moving"
[baseline]
source = "crate:dynamo-bench@1.6.1"
features = ["replay-bench"]
[candidate]
source = "` + candidate + `"
features = ["replay-bench"]
[trace]
path = "generated:conversation?seed=7&requests=10"
count = 10
[replay]
args = []
`
	}
	run := func(context.Context, string, string, io.Writer) int { t.Error("a row ran"); return 0 }
	for candidate, want := range map[string]string{
		"git:" + repo + "@main":   "[candidate] source: \"git:" + repo + "@main\" names a ref that can move before a job starts: name its commit (git:" + repo + "@" + strings.TrimSpace(string(head)) + ", what main is now)",
		"worktree:" + repo:        "not a working tree",
		"git:" + repo + "@nobody": "has no commit nobody",
	} {
		row := filepath.Join(src, "moving.toml")
		os.WriteFile(row, []byte(rowText(candidate)), 0o644)
		_, err := Run(context.Background(), Options{Dir: t.TempDir(), RowFiles: []string{row}, RunLocal: run, buildCache: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "moving.toml") {
			t.Errorf("%s: %v\nwant %q", candidate, err, want)
		}
	}
}

func TestJobScriptExportsTheBuildCache(t *testing.T) {
	s := string(jobScript{Row: "r", RowFile: "/s/r.toml", RowDir: "/s/m/r", Binary: "/s/m/kvparity", BuildCache: "/shared/builds"}.render())
	if !strings.Contains(s, "KVPARITY_BUILD_CACHE=/shared/builds\nexport KVPARITY_BUILD_CACHE\n") {
		t.Errorf("job.sh does not point the job at the matrix's builds:\n%s", s)
	}
}
