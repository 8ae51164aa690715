package engine

import (
	"strconv"
	"strings"
	"testing"
)

// A generated trace's size is bounded at load like every other number (issue 42): a row asking
// for a trillion requests is refused naming the file, the key and the limit, before anything
// is generated; a malformed spec is refused at load too, and a window past the generated
// trace's end.
func TestParseRowBoundsTheGeneratedTrace(t *testing.T) {
	row := func(path string, offset, count int) string {
		return strings.NewReplacer("conversation_trace.jsonl", path, "offset = 0", "offset = "+strconv.Itoa(offset), "count  = 5000", "count  = "+strconv.Itoa(count),
			`sha256 = "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df"`, "").Replace(designRow)
	}
	for _, c := range []struct {
		path          string
		offset, count int
		want          string
	}{
		{"generated:conversation?seed=7&requests=999999999999", 0, 5000,
			`row.toml: [trace] path: trace source "generated:conversation?seed=7&requests=999999999999": requests 999999999999 is above 1000000 (MaxGeneratedRequests), the largest generated trace kvparity accepts`},
		{"generated:conversation?seed=7&requests=10000000", 0, 5000, "requests 10000000 is above 1000000"},
		{"generated:conversation?seed=7&requests=99999999999999999999999", 0, 5000, "is above 1000000"},
		{"generated:conversation?seed=7&requests=1000001", 0, 5000, "row.toml: [trace] path: "},
		{"generated:conversation?seed=7&requests=-5", 0, 5000, `row.toml: [trace] path: trace source "generated:conversation?seed=7&requests=-5": requests "-5" is not a positive integer`},
		{"generated:chat?seed=7&requests=5", 0, 5, `row.toml: [trace] path: trace source "generated:chat?seed=7&requests=5": unknown generator "chat"`},
		{"generated:conversation?seed=7&requests=5000", 1, 5000, "row.toml: [trace] count: 5000 rows from offset 1 run past the generated trace's 5000 requests"},
		{"generated:conversation?seed=7&requests=50", 60, 1, "row.toml: [trace] count: 1 rows from offset 60 run past"},
	} {
		_, err := ParseRow([]byte(row(c.path, c.offset, c.count)), "row.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s [%d:+%d]: got %v, want %q", c.path, c.offset, c.count, err, c.want)
		}
	}
	for _, ok := range []struct {
		path          string
		offset, count int
	}{
		{"generated:conversation?seed=7&requests=1000000", 0, 5000}, // the limit itself
		{"generated:conversation?seed=7&requests=5000", 4999, 1},
	} {
		if _, err := ParseRow([]byte(row(ok.path, ok.offset, ok.count)), "row.toml"); err != nil {
			t.Errorf("%s [%d:+%d] refused: %v", ok.path, ok.offset, ok.count, err)
		}
	}
}
