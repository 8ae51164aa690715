package build

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The build cache is bounded: after every build the least recently used entries and lineages
// are removed until the cache fits its limit (KVPARITY_BUILD_CACHE_LIMIT, default 30 GB, read in
// cacheenv.go). An entry whose build is running (its lock is held) is never removed, nor the one
// just built.
// `kvparity cache` lists the cache and prunes it by hand.

// usedFile's modification time is when an entry was last built or used.
const usedFile = ".used"

// An Entry is one folder of the build cache.
type Entry struct {
	Dir      string    `json:"dir"`
	Kind     string    `json:"kind"`   // "build" (a built binary and its record) or "lineage" (a source's kept build folders)
	Source   string    `json:"source"` // what it was built from ("" when its record is missing)
	Bytes    int64     `json:"bytes"`
	LastUsed time.Time `json:"last_used"`
	Busy     bool      `json:"busy,omitempty"` // a build holds it now
}

var entryName = regexp.MustCompile(`^(lineage-)?[0-9a-f]{24}$`)

// touch records that dir was used now.
func touch(dir string) {
	p := filepath.Join(dir, usedFile)
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		os.WriteFile(p, nil, 0o644)
	}
}

// List reads the cache's entries, least recently used first.
func List(cache string) ([]Entry, error) {
	des, err := os.ReadDir(cache)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		if !de.IsDir() || !entryName.MatchString(de.Name()) {
			continue
		}
		dir := filepath.Join(cache, de.Name())
		e := Entry{Dir: dir, Kind: "build"}
		if strings.HasPrefix(de.Name(), lineagePrefix) {
			e.Kind = "lineage"
			var l lineageRecord
			if b, err := os.ReadFile(filepath.Join(dir, "lineage.json")); err == nil && json.Unmarshal(b, &l) == nil {
				e.Source = l.Source
			}
		} else {
			var info Info
			if b, err := os.ReadFile(filepath.Join(dir, "build.json")); err == nil && json.Unmarshal(b, &info) == nil {
				e.Source = info.Source
				if info.Variant != "" { // a calibrated slowdown of the same source is another build
					e.Source += " (" + info.Variant + ")"
				}
			}
		}
		if st, err := os.Stat(filepath.Join(dir, usedFile)); err == nil {
			e.LastUsed = st.ModTime()
		} else if st, err := os.Stat(dir); err == nil {
			e.LastUsed = st.ModTime()
		}
		e.Bytes = treeBytes(dir)
		e.Busy = busy(dir)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return a.LastUsed.Compare(b.LastUsed) })
	return out, nil
}

// Prune removes the least recently used entries until the cache holds at most limit bytes
// (0: no limit, nothing is removed), never a busy one or one of keep. It returns what it
// removed.
func Prune(cache string, limit int64, keep ...string) ([]Entry, error) {
	if limit <= 0 {
		return nil, nil
	}
	entries, err := List(cache)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, e := range entries {
		total += e.Bytes
	}
	var removed []Entry
	for _, e := range entries {
		if total <= limit {
			break
		}
		if e.Busy || slices.Contains(keep, e.Dir) {
			continue
		}
		if err := remove(e); err != nil {
			return removed, err
		}
		total -= e.Bytes
		removed = append(removed, e)
	}
	return removed, nil
}

// remove deletes one entry, holding its lock so no build starts in it meanwhile.
func remove(e Entry) error {
	f, err := os.OpenFile(filepath.Join(e.Dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("%s is in use by a build", e.Dir)
	}
	return os.RemoveAll(e.Dir)
}

// busy says a build holds dir's lock now.
func busy(dir string) bool {
	f, err := os.Open(filepath.Join(dir, ".lock"))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// treeBytes is the disk space a folder's files take (allocated blocks, as du counts).
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// lineageRecord says what a lineage builds, for `kvparity cache`.
type lineageRecord struct {
	Source   string   `json:"source"`
	Features []string `json:"features"`
}
