package exceptions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// lockWait bounds how long a save waits for another kvparity's save of the same campaign's
// records: a save holds the lock for one read and one fsynced write, so a longer wait means a
// stopped or hung holder, which the error names. (A variable so a test need not wait as long.)
var lockWait = 10 * time.Second

// lockExceptions takes the exclusive flock on <campaignDir>/exceptions.lock for one
// load-change-save of exceptions.jsonl; the returned func releases it. The lock file stays
// (removing it would let a waiter lock an unlinked file while a newcomer locks a new one); it
// names its holder for whoever waits. The kernel drops the lock when its holder dies, however
// it dies. A filesystem without flock is an error: saving unlocked could lose a record.
func lockExceptions(campaignDir string) (unlock func(), err error) {
	path := filepath.Join(campaignDir, layout.FileExceptionsLock)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if why := atomicfile.Unwritable(err); why != "" {
		// Every change of the records starts here: a folder nobody can write says so at once.
		return nil, fmt.Errorf("%s: exception records cannot be saved: campaign folder %s cannot be written (%s)", path, campaignDir, why)
	}
	if err != nil {
		return nil, fmt.Errorf("locking the exception records: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("%s cannot be locked (%v): exception records are saved only under this lock, so that two kvparity processes lose none", path, err)
		}
		if time.Now().After(deadline) {
			holder, _ := os.ReadFile(path)
			f.Close()
			return nil, fmt.Errorf("%s is still held after %s by %s: another kvparity is saving this campaign's exception records (stopped or hung?); try again once it is done", path, lockWait, holderName(holder))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Name the holder for a waiter's error; the records never depend on it.
	if err := f.Truncate(0); err == nil {
		f.WriteAt(fmt.Appendf(nil, "pid %d (%s) since %s\n", os.Getpid(), strings.Join(os.Args, " "), time.Now().UTC().Format(time.RFC3339)), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// holderName is the lock file's account of its holder, bounded for an error message.
func holderName(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "a process that has not named itself yet"
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
