package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// One campaign, one writer. Two kvparity processes appending to one journal would interleave
// their records and damage it for good, and each would take the other's running replays for
// strays. So whatever writes a campaign (a run, the workbench, the matrix's job records, the
// cleanup) first takes an exclusive flock on its campaign.lock, and writes into that file who
// holds it. The kernel drops an flock when its holder ends, however it ends, so a killed
// kvparity never leaves a campaign locked. A second writer is refused at once, naming the
// holder; the workbench opens such a campaign read-only and follows it (follow.go).

// A Holder is what the lock file says of the kvparity that holds it.
type Holder struct {
	Owner
	Command []string  `json:"command"`
	Since   time.Time `json:"since"`
}

// String names the holder for people: pid, host, command and since when.
func (h Holder) String() string {
	if h.PID == 0 {
		return "another kvparity (it has not named itself yet)"
	}
	s := fmt.Sprintf("kvparity pid %d", h.PID)
	if h.Host != "" {
		s += " on " + h.Host
	}
	if len(h.Command) > 0 {
		s += fmt.Sprintf(" (%s)", strings.Join(h.Command, " "))
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return s
}

// A HeldError refuses a second writer of a campaign.
type HeldError struct {
	dir    string
	Holder Holder
}

// NewHeldError refuses a second writer of the campaign dir, which holder writes.
func NewHeldError(dir string, holder Holder) *HeldError { return &HeldError{dir: dir, Holder: holder} }

func (e *HeldError) Error() string {
	return fmt.Sprintf("campaign %s is being written by %s: one writer at a time; follow it live with 'kvparity open %s', or wait until it ends",
		e.dir, e.Holder, e.dir)
}

// An UnwritableError says the campaign folder cannot be written at all (a read-only mount: an
// NFS export, a CI artifact, a snapshot; or no write permission). Nobody can write such a
// campaign, so none needs keeping out: a viewer opens it read-only without the lock.
type UnwritableError struct {
	dir string
	why string // "read-only file system", "permission denied"
}

func (e *UnwritableError) Error() string {
	return fmt.Sprintf("campaign folder %s cannot be written (%s)", e.dir, e.why)
}

// A Lock is a held campaign lock; release drops it.
type Lock struct{ f *os.File }

// LockCampaign takes dir's campaign lock for a writer outside the engine (the matrix adding a
// job record, the cleanup); the returned func releases it. A held lock is a *HeldError.
func LockCampaign(dir string) (release func(), err error) {
	l, err := TryLock(dir)
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}

// TryLock takes dir's campaign lock: a *HeldError when another kvparity holds it, an
// *UnwritableError when the folder cannot be written at all.
func TryLock(dir string) (*Lock, error) {
	path := filepath.Join(dir, layout.FileLock)
	f, err := openLock(path)
	if why := atomicfile.Unwritable(err); why != "" {
		// The one place a campaign is found unwritable: its lock file cannot be opened to write.
		return nil, &UnwritableError{dir: dir, why: why}
	}
	if err != nil {
		return nil, fmt.Errorf("campaign lock: %w", err)
	}
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); {
	case err == nil:
	case errors.Is(err, unix.EWOULDBLOCK):
		f.Close()
		return nil, &HeldError{dir: dir, Holder: ReadHolder(dir)}
	default:
		f.Close()
		return nil, fmt.Errorf("campaign lock %s: this filesystem refuses file locks (%v), so kvparity cannot make sure it is the campaign's only writer; put the campaign on a local filesystem", path, err)
	}
	h := Holder{Owner: Self(), Command: os.Args, Since: time.Now().UTC()}
	b, _ := json.Marshal(h)
	// Written in place, never renamed: the lock lives on this inode.
	if err := f.Truncate(0); err == nil {
		f.WriteAt(append(b, '\n'), 0)
		f.Sync()
	}
	return &Lock{f: f}, nil
}

// openLock opens (creating) a campaign's lock file to write; a variable so that a test can
// have it fail as a read-only or forbidden folder does, without mounting one.
var openLock = func(path string) (*os.File, error) {
	return atomicfile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// Release empties the lock file (nobody holds it) and drops the lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Truncate(0)
	l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
}

// ReadHolder reads who holds dir's lock; an empty or unreadable file gives a zero Holder.
func ReadHolder(dir string) Holder {
	var h Holder
	b, err := os.ReadFile(filepath.Join(dir, layout.FileLock))
	if err == nil {
		json.Unmarshal(b, &h)
	}
	return h
}
