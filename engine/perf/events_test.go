package perf

import "testing"

// A sample's invalidity gives the condition it names, without its figures: what the
// invalidation record's causes hold (engine's TestInvalidationEventCarriesItsCauses).
func TestInvalidityCause(t *testing.T) {
	if c := invalidityCause("competing load on CPU 1: 70 ms of 480 ms busy (limit 48 ms = max(…); /proc/stat)"); c != "competing load on CPU 1" {
		t.Fatalf("cause %q", c)
	}
}
