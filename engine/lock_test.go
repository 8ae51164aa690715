package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvparity/engine/run"
	"kvparity/internal/layout"
)

// Issue 25, case "two writers corrupt the journal": a second writer of a campaign is refused
// at once, naming the holder, whether it resumes or creates; once the first closes, it opens.
func TestSecondWriterIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := openTest(t, tinyTestRow("", ""), dir)
	before, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal))
	for name, open := range map[string]func() (*Campaign, error){
		"open":           func() (*Campaign, error) { return Open(dir, testOptions(t, dir)) },
		"open-or-create": func() (*Campaign, error) { return OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir)) },
	} {
		c2, err := open()
		var held *run.HeldError
		if !errors.As(err, &held) {
			if c2 != nil {
				c2.Close()
			}
			t.Fatalf("%s: a second writer got %v, want a *run.HeldError", name, err)
		}
		if held.Holder.PID != os.Getpid() || held.Holder.Start == 0 || held.Holder.Since.IsZero() || len(held.Holder.Command) == 0 {
			t.Errorf("%s: the holder is not named whole: %+v", name, held.Holder)
		}
		for _, want := range []string{"pid " + itoa(os.Getpid()), "one writer at a time", "kvparity open " + dir} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not say %q", name, err, want)
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal)); string(after) != string(before) {
		t.Error("a refused writer changed the journal")
	}
	c.Close()
	c2, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatalf("after the writer closed: %v", err)
	}
	c2.Close()
}

// Two creations racing for one new folder: one creates, the other is refused (never both
// writing founding records into one folder).
func TestCreationHoldsTheLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	os.MkdirAll(dir, 0o755)
	release, err := run.LockCampaign(dir) // another kvparity in the middle of creating it
	if err != nil {
		t.Fatal(err)
	}
	_, err = Create(tinyTestRow("", ""), testOptions(t, dir))
	var held *run.HeldError
	if !errors.As(err, &held) {
		t.Fatalf("Create beside a held lock: %v, want a *run.HeldError", err)
	}
	release()
	c, err := Create(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatalf("Create after the lock was released (the lock file alone is no foreign content): %v", err)
	}
	c.Close()
}

// Issue 25, case "open on a running campaign": a follower opens read-only while the writer
// runs the determinism stage, publishes the writer's runs, digests and stage as they happen,
// refuses every stage with the holder's name, writes nothing, and says when the writer ends.
func TestFollowerShowsTheWritersStageLive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	w, wlog := openTest(t, tinyTestRow("", ""), dir)
	opts := testOptions(t, dir)
	opts.Follow = true
	f, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flog := drain(f)
	flog.waitFor(t, "the followed writer", func(evs []Event) bool { return len(eventsOf[FollowedWriter](evs)) == 1 })
	if got := eventsOf[FollowedWriter](flog.all())[0]; got.Holder.PID != os.Getpid() || got.Ended {
		t.Fatalf("FollowedWriter %+v, want this process, not ended", got)
	}
	for name, start := range map[string]func() error{"determinism": ctl(f).StartDeterminism, "perf": ctl(f).StartPerf,
		"repetition": func() error { return ctl(f).AddRepetition(Baseline) }, "watch": func() error { return ctl(f).SetWatch(true) }} {
		var held *run.HeldError
		if err := start(); !errors.As(err, &held) {
			t.Errorf("%s on a follower: %v, want the holder's *run.HeldError", name, err)
		}
	}
	if ro := f.Info().ReadOnly; !strings.Contains(ro, "pid "+itoa(os.Getpid())) {
		t.Errorf("Info().ReadOnly %q does not name the writer", ro)
	}
	if err := ctl(w).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	wlog.waitFor(t, "the writer's stage end", func(evs []Event) bool { return len(eventsOf[StageStopped](evs)) == 1 })
	want := len(eventsOf[DigestReady](wlog.all()))
	flog.waitFor(t, "the writer's digests and stage on the follower", func(evs []Event) bool {
		return len(eventsOf[DigestReady](evs)) == want && len(eventsOf[StageStarted](evs)) == 1 && len(eventsOf[StageStopped](evs)) == 1
	})
	if n := len(eventsOf[RunStarted](flog.all())); n != len(eventsOf[RunStarted](wlog.all())) {
		t.Errorf("the follower published %d run starts, the writer %d", n, len(eventsOf[RunStarted](wlog.all())))
	}
	if len(f.journal.Records()) != len(w.journal.Records()) {
		t.Errorf("the follower holds %d records, the journal %d", len(f.journal.Records()), len(w.journal.Records()))
	}
	w.Close()
	flog.waitFor(t, "the writer's end", func(evs []Event) bool {
		fw := eventsOf[FollowedWriter](evs)
		return len(fw) == 2 && fw[1].Ended
	})
}

// Issue 25, case "an edited frozen row.toml goes unnoticed": a resume refuses it, naming the
// file and the first differing key with both values.
func TestEditedFrozenRowIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := openTest(t, tinyTestRow("", ""), dir)
	c.Close()
	path := filepath.Join(dir, layout.FileRow)
	frozen, _ := os.ReadFile(path)
	for _, tc := range []struct{ from, to, key string }{
		{"repetitions = 2", "repetitions = 3", "[determinism] repetitions"},
		{`"--num-workers", "2"`, `"--num-workers", "3"`, "[replay] args"},
		{"\n", "\n# a note\n", ""},
	} {
		edited := strings.Replace(string(frozen), tc.from, tc.to, 1)
		if edited == string(frozen) {
			t.Fatalf("the frozen row has no %q:\n%s", tc.from, frozen)
		}
		os.WriteFile(path, []byte(edited), 0o644)
		_, err := Open(dir, testOptions(t, dir))
		var re *RowEditedError
		if !errors.As(err, &re) {
			t.Fatalf("edit %q → %q: Open gave %v, want a *RowEditedError", tc.from, tc.to, err)
		}
		if re.key != tc.key || !strings.Contains(err.Error(), path) {
			t.Errorf("edit %q → %q: %v; want the key %q and the file", tc.from, tc.to, err, tc.key)
		}
	}
	os.WriteFile(path, frozen, 0o644)
	c2, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatalf("the restored row: %v", err)
	}
	c2.Close()
}

func itoa(n int) string { return strconv.Itoa(n) }
