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
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out after %s waiting for %s", deadline, what)
		}
		time.Sleep(10 * time.Millisecond) // the poll interval, not a wait for anything
	}
}
