package report

import (
	"strings"
	"testing"
)

// Duplicate keys and invalid UTF-8 in a trace line are refused naming the line (encoding/json
// alone would keep the last duplicate and replace bad bytes silently).
func TestMooncakeLineRefusesDuplicatesAndBadUTF8(t *testing.T) {
	for line, want := range map[string]string{
		`{"timestamp": 1, "input_length": 5, "output_length": 2, "hash_ids": [1], "input_length": 7}`:                  `line 3: field "input_length": named twice`,
		"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 2, \"hash_ids\": [1], \"session_id\": \"a\xffb\"}": "line 3: not a JSON object",
		`{"timestamp": 1} {"timestamp": 2}`: "line 3: not one JSON object",
		`[1, 2]`:                            "line 3: not a JSON object",
	} {
		_, err := parseMooncakeLine([]byte(line), 3)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", line, err, want)
		}
	}
	if _, err := parseMooncakeLine([]byte(`{"timestamp": 1, "input_length": 5, "output_length": 2, "hash_ids": [1]}`), 1); err != nil {
		t.Errorf("a good line: %v", err)
	}
}
