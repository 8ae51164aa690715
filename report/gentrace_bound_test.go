package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The generator refuses a size above its named limit before generating anything (issue 42: a
// trillion requests grew kvparity to 23 GB until the kernel killed it).
func TestGenerateConversationTraceRefusesAboveTheLimit(t *testing.T) {
	var out bytes.Buffer
	for _, n := range []int{1_000_001, 10_000_000, 999_999_999_999, -1} {
		err := GenerateConversationTrace(&out, n, 7)
		if err == nil || !strings.Contains(err.Error(), "must be 0..1000000") {
			t.Errorf("requests %d: got %v", n, err)
		}
	}
	if out.Len() != 0 {
		t.Errorf("a refused size wrote %d bytes", out.Len())
	}
}

// The streaming generator writes exactly the bytes of generating every row, sorting and
// cutting (the digests are the generator's before it streamed, so pinned rows keep their
// sha256).
func TestGenerateConversationTraceBytesUnchanged(t *testing.T) {
	for _, c := range []struct {
		requests int
		seed     int64
		sha      string
	}{
		{0, 7, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{1, 7, "eb3aca2ed7a08510d85f48bdf549be00a299c56eaf1f8c529e8241de9de734e7"},
		{2, 9, "f4d399e2c9284c8e8d24ac10f69e5d562635c05f842dd68929b77d0919adef95"},
		{300, 8, "6ba3943cf56bcd39b20c70c9c9eb16d8db75ab61b3717e5514cfc8cc172199a4"},
		{5000, 7, "dad3c5f3d96ce8ed30f6f9011006930ee7778fde0b6f548b29e41b0d0b4b074c"},
		{50000, 3, "574b954fc920f02edb4714874bf850fc96dba3ea19010f2b10c523aa01fecc4d"},
	} {
		h := sha256.New()
		if err := GenerateConversationTrace(h, c.requests, c.seed); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != c.sha {
			t.Errorf("requests %d seed %d: sha256 %s, want %s", c.requests, c.seed, got, c.sha)
		}
	}
}

// errWriter refuses every write.
type errWriter struct{}

var errRefused = errors.New("refused")

func (errWriter) Write([]byte) (int, error) { return 0, errRefused }

// The generator streams: the first rows reach the writer after a few conversations, not after
// the whole trace is built, so a writer that refuses its first write stops it at once, having
// allocated a few megabytes (building 250,000 rows first allocates hundreds).
func TestGenerateConversationTraceStreams(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := GenerateConversationTrace(errWriter{}, 200_000, 7)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errRefused) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 16<<20 {
		t.Errorf("the generator allocated %d MB before its first write: it builds the trace in memory", a>>20)
	}
}

// A window of a generated source is cut from the generator's stream: the whole trace (400,000
// rows, about 100 MB) is hashed but never held, so the heap stays far below its size.
// (TestWriteWindowGenerated checks the source's sha256 is the whole generated trace's.)
func TestWriteWindowGeneratedHoldsOnlyTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 400,000 rows")
	}
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var out bytes.Buffer
	info, err := WriteWindow("generated:conversation?seed=7&requests=400000", 1000, 50, &out)
	close(stop)
	<-done
	if err != nil || info.Rows != 50 || info.FirstLine != 1001 {
		t.Fatalf("window: %+v %v", info, err)
	}
	t.Logf("heap peak %d MB", peak.Load()>>20)
	if p := peak.Load(); p > 48<<20 {
		t.Errorf("heap peaked at %d MB while cutting a 50-row window: the source is held in memory", p>>20)
	}
}
