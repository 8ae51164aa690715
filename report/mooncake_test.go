package report

import (
	"strings"
	"testing"
)

func TestParseMooncakeLineFieldsAndAliases(t *testing.T) {
	row, err := parseMooncakeLine([]byte(`{"created_time": 12.5, "input_tokens": 700, "output_tokens": 3, "hash_ids": [4, 5], "session_id": "s1", "delay_ms": 2, "priority": -1}`), 9)
	if err != nil {
		t.Fatal(err)
	}
	if row.Line != 9 || row.Timestamp != 12.5 || !row.hasTimestamp || row.InputLength == nil || *row.InputLength != 700 ||
		row.OutputLength != 3 || len(row.HashIDs) != 2 || row.HashIDs[1] != 5 || row.SessionID != "s1" ||
		row.delay == nil || *row.delay != 2 || row.priority == nil || *row.priority != -1 {
		t.Fatalf("unexpected row %+v", row)
	}
	row, err = parseMooncakeLine([]byte(`{"output_length": 1, "hash_ids": []}`), 1)
	if err != nil {
		t.Fatal(err)
	}
	if row.hasTimestamp || row.InputLength != nil || row.SessionID != "" {
		t.Fatalf("absent optional fields must stay absent: %+v", row)
	}
}

func TestParseMooncakeLineErrorsNameLineAndField(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"timestamp": 0, "input_length": 5, "hash_ids": [1]}`, `line 17: field "output_length": missing (required)`},
		{`{"timestamp": 0, "output_length": 5}`, `line 17: field "hash_ids": missing (required)`},
		{`{"timestamp": 0, "output_length": 5, "hash_ids": [1, -2]}`, `line 17: field "hash_ids": element 1: expected a non-negative integer, got -2`},
		{`{"timestamp": "x", "output_length": 5, "hash_ids": [1]}`, `line 17: field "timestamp": expected a number, got "x"`},
		{`{"timestamp": 0, "output_tokens": 2.5, "hash_ids": [1]}`, `line 17: field "output_tokens": expected a non-negative integer, got 2.5`},
		{`{"timestamp": 0, "input_length": 1, "input_tokens": 1, "output_length": 5, "hash_ids": [1]}`, `line 17: field "input_tokens": duplicate of "input_length"`},
		{`[1,2]`, `line 17: not a JSON object`},
	}
	for _, c := range cases {
		_, err := parseMooncakeLine([]byte(c.line), 17)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want prefix %q", c.line, err, c.want)
		}
	}
}

func TestReadMooncakeSkipsBlankLinesAndNamesFile(t *testing.T) {
	in := "{\"timestamp\": 0, \"output_length\": 1, \"hash_ids\": [1]}\n\n   \n{\"timestamp\": 5, \"output_length\": 2, \"hash_ids\": [1, 2]}"
	rows, err := ReadMooncake(strings.NewReader(in), "trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Line != 4 || rows[1].OutputLength != 2 {
		t.Fatalf("rows = %+v", rows)
	}
	_, err = ReadMooncake(strings.NewReader(in+"\n{\"output_length\": 1, \"hash_ids\": \"x\"}\n"), "trace.jsonl")
	want := `trace.jsonl:5: field "hash_ids": expected an array of non-negative integers, got "x"`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// FuzzParseMooncakeLine: any input gives a row or a *mooncakeError naming the line, never a
// panic.
func FuzzParseMooncakeLine(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 8, "output_length": 2, "hash_ids": [1]}`))
	f.Add([]byte(`{"created_time": 1.5, "input_tokens": 8, "output_tokens": 2, "hash_ids": [1, 2], "session_id": 7}`))
	f.Add([]byte(`{"output_length": -1, "hash_ids": [1e3]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		row, err := parseMooncakeLine(line, 3)
		if err != nil {
			if _, ok := err.(*mooncakeError); !ok || !strings.HasPrefix(err.Error(), "line 3: ") {
				t.Fatalf("error %T %q", err, err)
			}
			return
		}
		if row.Line != 3 || row.HashIDs == nil {
			t.Fatalf("row %+v", row)
		}
	})
}
