package e2e

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing the test with what was awaited when deadline
// passes first. Tests wait on the condition itself (a journal record, a process state in
// /proc, a file, an event), never for a fixed time: a busy machine only makes them slower.
func WaitFor(t testing.TB, what string, deadline time.Duration, cond func() bool) {
	t.Helper()
	if !Until(deadline, cond) {
		t.Fatalf("timed out after %s waiting for %s", deadline, what)
	}
}

// Until polls cond until it holds or deadline passes, and reports whether it held: for a test
// that then says itself what it found.
func Until(deadline time.Duration, cond func() bool) bool {
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // the poll interval, not a wait for anything
	}
	return true
}
