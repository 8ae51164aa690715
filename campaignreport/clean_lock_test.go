package campaignreport_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine/run"
)

// Issue 25, deliverable 1 (one writer): `kvparity clean` takes the campaign lock. While another
// kvparity holds it (it may be running the binaries clean would remove), clean is refused at
// once naming the holder and removes nothing; a dry run, which writes nothing, still answers;
// once the lock is free, clean proceeds.
func TestCleanTakesTheCampaignLock(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-pass")
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	reportTwice(t, dir)
	before := files(t, dir)
	release, err := run.LockCampaign(dir) // another kvparity writes the campaign
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if release != nil {
			release()
		}
	}()
	holder := "is being written by kvparity pid " + strconv.Itoa(os.Getpid())

	_, err = campaignreport.Clean(dir, false)
	var held *run.HeldError
	if !errors.As(err, &held) || held.Holder.PID != os.Getpid() || !strings.Contains(err.Error(), "clean: campaign "+dir+" "+holder) {
		t.Fatalf("Clean beside a held lock: %v, want a *HeldError naming pid %d", err, os.Getpid())
	}
	if _, errs, code := kv(t, "clean", dir); code != 3 || !strings.Contains(errs, holder) {
		t.Fatalf("kvparity clean beside a held lock: exit %d, %q; want 3 naming the holder", code, errs)
	}
	if !slices.Equal(files(t, dir), before) {
		t.Fatal("a refused clean removed files")
	}
	if out, errs, code := kv(t, "clean", "--dry-run", dir); code != 0 || !slices.Equal(files(t, dir), before) {
		t.Fatalf("dry run beside a held lock: exit %d\n%s%s", code, out, errs)
	}

	release()
	release = nil
	if out, errs, code := kv(t, "clean", dir); code != 0 || slices.Equal(files(t, dir), before) {
		t.Fatalf("clean once the lock is free: exit %d, files changed %v\n%s%s", code, !slices.Equal(files(t, dir), before), out, errs)
	}
}
