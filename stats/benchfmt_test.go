package stats

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteBench(t *testing.T) {
	var buf bytes.Buffer
	err := WriteBench(&buf, [][2]string{{"row", "vllm-disagg"}, {"timing-field", "replay_execution_ms"}},
		[]BenchUnit{{Unit: "ns/op", Assume: "nothing", Better: "lower"}},
		[]BenchLine{{Name: "Replay/arm=baseline", Value: 123456789, Unit: "ns/op"}, {Name: "Replay/arm=candidate", Value: 1.5e9, Unit: "ns/op"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "row: vllm-disagg\ntiming-field: replay_execution_ms\nUnit ns/op assume=nothing better=lower\n" +
		"BenchmarkReplay/arm=baseline 1 123456789 ns/op\nBenchmarkReplay/arm=candidate 1 1500000000 ns/op\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriteBenchRejects(t *testing.T) {
	cases := []struct {
		config [][2]string
		lines  []BenchLine
		want   string
	}{
		{[][2]string{{"Row", "x"}}, nil, `key "Row"`},
		{[][2]string{{"a b", "x"}}, nil, `key "a b"`},
		{nil, []BenchLine{{Name: "Re play", Value: 1, Unit: "ns/op"}}, `name "Re play"`},
		{nil, []BenchLine{{Name: "Replay", Value: 1, Unit: ""}}, `unit ""`},
	}
	for _, c := range cases {
		err := WriteBench(&bytes.Buffer{}, c.config, nil, c.lines)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want one naming %s", err, c.want)
		}
	}
}
