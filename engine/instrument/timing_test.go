package instrument

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTiming(t *testing.T) {
	const path = "runs/perf/pair-001-baseline/timings.jsonl"
	good := `{"iteration":0,"replay_bench":true,"replay_execution_ms":1234.5,"wall_time_ms":1300.0,"extra":"tolerated"}` + "\n"
	if v, _, err := parseTiming([]byte(good), path, "replay_execution_ms"); err != nil || v != 1234.5 {
		t.Fatalf("good record: %v %v", v, err)
	}
	cases := []struct {
		name, data, field string
		blocked           bool
		want              string
	}{
		{"empty", "", "replay_execution_ms", false, "the file is empty"},
		{"torn", `{"replay_bench":true`, "replay_execution_ms", false, "line 1 is truncated"},
		{"two lines", good + good, "replay_execution_ms", false, "2 lines, expected exactly 1"},
		{"not json", "hello\n", "replay_execution_ms", false, "line 1: invalid character"},
		{"not an object", "[1,2]\n", "replay_execution_ms", false, "line 1: json: cannot unmarshal array"},
		{"bench missing", `{"replay_execution_ms":1}` + "\n", "replay_execution_ms", true, "/replay_bench is missing"},
		{"bench false", `{"replay_bench":false,"replay_execution_ms":1}` + "\n", "replay_execution_ms", true, "/replay_bench is false"},
		{"field missing", `{"replay_bench":true,"replay_call_ms":5,"wall_time_ms":6}` + "\n", "replay_execution_ms", true,
			"does not write replay_execution_ms; it writes replay_bench (not a number), replay_call_ms, wall_time_ms"},
		{"field a string", `{"replay_bench":true,"replay_execution_ms":"5"}` + "\n", "replay_execution_ms", true, `/replay_execution_ms is "5", not a number: the harness gives no usable replay_execution_ms`},
		{"field null", `{"replay_bench":true,"replay_execution_ms":null}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is null, not a number"},
		{"field zero", `{"replay_bench":true,"replay_execution_ms":0}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is 0, not a finite time > 0"},
		{"field negative", `{"replay_bench":true,"replay_execution_ms":-3}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is -3, not a finite time > 0"},
		// One rule for every timing value that is not a finite time > 0: a bare NaN or Infinity
		// (no JSON parser reads it) blocks like null, and names the literal.
		{"field NaN", `{"replay_bench":true,"replay_execution_ms":NaN}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is NaN, not a finite time > 0"},
		{"field -Infinity", `{"replay_execution_ms": -Infinity, "replay_bench":true}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is -Infinity, not a finite time > 0"},
		{"another field NaN", `{"replay_bench":true,"replay_execution_ms":5,"wall_time_ms":NaN}` + "\n", "replay_execution_ms", false, "line 1: invalid character 'N'"},
	}
	for _, c := range cases {
		_, _, err := parseTiming([]byte(c.data), path, c.field)
		var tf *TimingFault
		if !errors.As(err, &tf) {
			t.Errorf("%s: err %v is not a timing fault", c.name, err)
			continue
		}
		if tf.Blocked != c.blocked || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: blocked=%v %q; want blocked=%v and %q naming the file", c.name, tf.Blocked, err, c.blocked, c.want)
		}
	}
	if _, err := ReadTiming(t.TempDir()+"/none.jsonl", "replay_execution_ms"); err == nil || !strings.Contains(err.Error(), "wrote no timings file") {
		t.Errorf("missing file: %v", err)
	}
}
