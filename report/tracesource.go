package report

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// generatedPrefix starts a trace source that is generated rather than read:
// "generated:conversation?seed=S&requests=N".
const generatedPrefix = "generated:"

// openTraceSource opens a trace source for reading and returns the name errors should use: a
// file, or a generated: spec whose generator writes into a pipe as the reader reads, so a
// generated trace is never held whole in memory. Closing the reader stops the generator.
func openTraceSource(src string) (io.ReadCloser, string, error) {
	if !strings.HasPrefix(src, generatedPrefix) {
		f, err := os.Open(src)
		if err != nil {
			return nil, src, fmt.Errorf("trace window: %w", err)
		}
		return f, src, nil
	}
	seed, requests, err := ParseGeneratedSpec(src)
	if err != nil {
		return nil, src, err
	}
	pr, pw := io.Pipe()
	go func() {
		err := GenerateConversationTrace(pw, requests, seed)
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			err = fmt.Errorf("generating %s: %w", src, err)
		}
		pw.CloseWithError(err) // nil: the reader sees the end of the trace
	}()
	return pr, src, nil
}

// ParseGeneratedSpec reads "generated:conversation?seed=S&requests=N" (both parameters
// required, nothing else allowed; requests at most MaxGeneratedRequests). A row's trace path
// is checked with it when the row loads.
func ParseGeneratedSpec(src string) (seed int64, requests int, err error) {
	bad := func(msg string) error {
		return fmt.Errorf("trace source %q: %s (want generated:conversation?seed=S&requests=N)", src, msg)
	}
	spec, ok := strings.CutPrefix(src, generatedPrefix)
	if !ok {
		return 0, 0, bad("not a generated: source")
	}
	kind, query, _ := strings.Cut(spec, "?")
	if kind != "conversation" {
		return 0, 0, bad("unknown generator " + strconv.Quote(kind))
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return 0, 0, bad(err.Error())
	}
	for k, v := range q {
		if k != "seed" && k != "requests" {
			return 0, 0, bad("unknown parameter " + strconv.Quote(k))
		}
		if len(v) != 1 {
			return 0, 0, bad("parameter " + strconv.Quote(k) + " given more than once")
		}
	}
	if !q.Has("seed") || !q.Has("requests") {
		return 0, 0, bad("seed and requests are both required")
	}
	seed, err = strconv.ParseInt(q.Get("seed"), 10, 64)
	if err != nil {
		return 0, 0, bad("seed " + strconv.Quote(q.Get("seed")) + " is not an integer")
	}
	n := q.Get("requests")
	requests, err = strconv.Atoi(n)
	switch {
	case err == nil && requests > MaxGeneratedRequests, errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(n, "-"):
		return 0, 0, bad(fmt.Sprintf("requests %s is above %d (MaxGeneratedRequests), the largest generated trace kvparity accepts", n, MaxGeneratedRequests))
	case err != nil || requests <= 0:
		return 0, 0, bad("requests " + strconv.Quote(n) + " is not a positive integer")
	}
	return seed, requests, nil
}
