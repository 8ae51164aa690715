package engine

import (
	"kvparity/engine/journal"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kvparity/e2e"
	"kvparity/engine/run"
	"kvparity/internal/layout"
)

// Case 1 of issue 13: a folder without a journal that is not empty is refused, naming the
// folder and what it holds, and nothing in it is overwritten.
func TestCreateRefusesNonEmptyFolderWithoutJournal(t *testing.T) {
	for name, setup := range map[string]func(dir string){
		"user row.toml": func(dir string) {
			os.WriteFile(filepath.Join(dir, layout.FileRow), []byte("# my own row\n"), 0o644)
		},
		"deleted journal": func(dir string) {
			os.MkdirAll(filepath.Join(dir, layout.DirRuns, "det", "baseline-1"), 0o755)
			os.WriteFile(filepath.Join(dir, layout.FileRow), []byte("# my own row\n"), 0o644)
		},
		"any file": func(dir string) {
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
		},
		"creation marker with a foreign file": func(dir string) {
			os.WriteFile(filepath.Join(dir, layout.FileCreating), nil, 0o644)
			os.WriteFile(filepath.Join(dir, layout.FileRow), []byte("# my own row\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			setup(dir)
			_, err := OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir))
			if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not empty") {
				t.Fatalf("err = %v, want a refusal naming %s", err, dir)
			}
			if b, err := os.ReadFile(filepath.Join(dir, layout.FileRow)); err == nil && string(b) != "# my own row\n" {
				t.Fatalf("row.toml was overwritten: %q", b)
			}
			if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err == nil {
				t.Fatal("a journal was created")
			}
			if _, err := os.Stat(filepath.Join(dir, layout.FileLock)); err == nil {
				t.Fatal("the refused folder was left with a campaign lock file")
			}
		})
	}
}

// An empty folder, and a folder a killed creation left (marker + creation files only), are
// created in.
func TestCreateInEmptyOrHalfCreatedFolder(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(filepath.Join(dir, layout.FileCreating)); !os.IsNotExist(err) {
		t.Fatalf("creation marker left behind: %v", err)
	}
	// Simulate a creation killed before its journal.
	os.Remove(filepath.Join(dir, layout.FileJournal))
	os.WriteFile(filepath.Join(dir, layout.FileCreating), nil, 0o644)
	c, err = OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatalf("half-created folder: %v", err)
	}
	c.Close()
	// A matrix row's folder: the matrix wrote its jobs, placement and run output first.
	row := t.TempDir()
	for _, f := range []string{layout.FileJobs, layout.FilePlacement, layout.FileLocalRunOutput, "slurm-12.out"} {
		os.WriteFile(filepath.Join(row, f), []byte("{}"), 0o644)
	}
	c, err = OpenOrCreate(tinyTestRow("", ""), testOptions(t, row))
	if err != nil {
		t.Fatalf("a matrix row's folder: %v", err)
	}
	c.Close()
}

// Case 3 of issue 13: an unordered entry that names an object or a missing sort key blocks
// the row on the first canonical report, naming the row file and [canonical] unordered.
func TestUnorderedProfileMismatchBlocksNamingTheRow(t *testing.T) {
	for name, unordered := range map[string]map[string]string{
		"object":      {"/summary": "uuid"},
		"missing key": {"/per_request": "no_such_member"},
	} {
		t.Run(name, func(t *testing.T) {
			row := tinyTestRow("", "")
			row.Canonical.Unordered = unordered
			dir := filepath.Join(t.TempDir(), "c")
			_, evs := runDeterminism(t, row, dir)
			blocks := eventsOf[RowBlocked](evs)
			if len(blocks) == 0 {
				t.Fatalf("not blocked; events %v", evs)
			}
			want := filepath.Join(dir, layout.FileRow) + ": [canonical] unordered: does not fit the report"
			if !strings.Contains(blocks[0].Reason, want) {
				t.Fatalf("block reason %q, want it to contain %q", blocks[0].Reason, want)
			}
		})
	}
}

// Case 8 of issue 13: an empty binary is "not an executable (0 bytes)", not "EOF".
func TestPinEmptyBinarySaysSo(t *testing.T) {
	src := filepath.Join(t.TempDir(), "offline_replay_bench")
	os.WriteFile(src, nil, 0o755)
	_, err := pinArtifact(t.TempDir(), Baseline, 1, ArmSpec{Revision: "abcdef0", Binary: src}, src)
	if err == nil || !strings.Contains(err.Error(), "not an executable (0 bytes)") {
		t.Fatalf("got %v", err)
	}
	os.WriteFile(src, []byte("\x7fELF\x02\x01\x01"), 0o755)
	_, err = pinArtifact(t.TempDir(), Baseline, 1, ArmSpec{Revision: "abcdef0", Binary: src}, src)
	if err == nil || strings.HasSuffix(err.Error(), "EOF") {
		t.Fatalf("truncated ELF: got %v", err)
	}
}

// Case 6 of issue 13: on resume, the surviving members of a recorded process group whose run
// has no run_end are killed, with a warning.
func TestResumeKillsSurvivorsOfUnendedRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, err := OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	// A survivor: a process group whose leader already died (as a killed replay's would be).
	pgid, cmd := startGroupIn(t, filepath.Join(dir, layout.DirRuns, "det", "baseline-1"), "sh", "-c", "sleep 300 & sleep 300 & wait")
	// Its owner is a kvparity that is gone (a pid no process has).
	dead := run.Self()
	dead.PID, dead.Start = deadPID(t), 1
	if _, err := c.journal.Append(Record{Type: RecRunStart, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, Gen: 1, PID: pgid, Owner: &dead}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	recs, _, _ := journal.Read[Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if last := recs[len(recs)-1]; last.PGID != pgid {
		t.Fatalf("run_start records pgid %d, want %d", last.PGID, pgid)
	}
	// The shell must have forked both sleeps before the resume looks, or there would be no
	// survivors besides the shell to find and the test would prove less than it says.
	e2e.WaitFor(t, "the survivor group's shell and its two sleeps in /proc", 30*time.Second, func() bool { return len(groupMembers(pgid)) == 3 })
	var warned []string
	opts := testOptions(t, dir)
	opts.Warn = func(s string) { warned = append(warned, s) }
	c, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if len(warned) == 0 || !strings.Contains(strings.Join(warned, "\n"), "process group "+strconv.Itoa(pgid)) {
		t.Fatalf("no warning about the survivors: %q", warned)
	}
	cmd.Wait()
	if left := groupMembers(pgid); len(left) > 0 {
		t.Fatalf("pids %v of group %d survived the resume", left, pgid)
	}
}

// groupMembers lists the live (non-zombie) processes of process group pgid.
func groupMembers(pgid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := run.ReadProc(pid); ok && p.PGID == pgid && p.State != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}
