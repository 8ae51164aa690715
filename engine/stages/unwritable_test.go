package stages_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kvparity/e2e"
	"kvparity/engine"
	"kvparity/engine/enginetest"
	"kvparity/engine/stages"
)

func TestMain(m *testing.M) { enginetest.Main(m) }

// Issue 42: a campaign folder nobody can write (a read-only mount: an NFS export, a CI
// artifact, a snapshot) opens for a viewer (kvparity open, Follow) read-only and unlocked
// instead of failing on its lock: the history replays, Info says why it is read-only, every
// stage, repetition, rerun and watch is refused with "read-only: campaign folder … cannot be
// written (…)", and nothing in the folder changes. A writer (kvparity run) is refused saying
// so and how to view it. The folder is really made unwritable: a read-only bind mount as root
// (skipped, saying why, where mount is not permitted), no write permission otherwise.
func TestUnwritableCampaignOpensReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	w, wlog := enginetest.Open(t, enginetest.Row("", ""), dir)
	if err := stages.New(w).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	w.Wait()
	digests := len(enginetest.EventsOf[engine.DigestReady](wlog.All()))
	w.Close()
	why := e2e.ReadOnly(t, dir)
	before := folderState(t, dir)
	want := "campaign folder " + dir + " cannot be written (" + why + ")"
	opts := enginetest.Options(t, dir)
	opts.Follow = true
	c, err := engine.Open(dir, opts)
	if err != nil {
		t.Fatalf("open of an unwritable campaign: %v, want it opened read-only", err)
	}
	log := enginetest.Drain(c)
	log.WaitFor(t, "the replayed history", func(evs []engine.Event) bool {
		h := enginetest.EventsOf[engine.HistoryReplayed](evs)
		return len(h) == 1 && h[0].Records > 0 && len(enginetest.EventsOf[engine.DigestReady](evs)) == digests
	})
	if info := c.Info(); info.Unwritable != want || info.ReadOnly != "read-only: "+want {
		t.Errorf("Info: Unwritable %q, ReadOnly %q; want %q and \"read-only: \" before it", info.Unwritable, info.ReadOnly, want)
	}
	ctl := stages.New(c)
	for name, write := range map[string]func() error{
		"determinism": ctl.StartDeterminism, "perf": ctl.StartPerf, "watch": func() error { return ctl.SetWatch(true) },
		"repetition": func() error { return ctl.AddRepetition(engine.Baseline) }, "rerun": func() error { return ctl.RerunRepetition("det/baseline-1") },
		"investigation": func() error { return ctl.StartInvestigation("semantic PASS") },
	} {
		if err := write(); err == nil || err.Error() != "read-only: "+want {
			t.Errorf("%s on an unwritable campaign: %v, want %q", name, err, "read-only: "+want)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}

	_, err = engine.Open(dir, enginetest.Options(t, dir))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "'kvparity open "+dir+"' shows it read-only") {
		t.Errorf("a writer's open of an unwritable campaign: %v, want a refusal naming the folder and how to view it", err)
	}
	if after := folderState(t, dir); after != before {
		t.Errorf("the unwritable folder changed:\nbefore %s\nafter  %s", before, after)
	}
}

// folderState lists every file under dir with its size and modification time.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + st.Mode().String() + " " + strconv.Itoa(int(st.Size())) + " " + st.ModTime().Format(time.RFC3339Nano) + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
