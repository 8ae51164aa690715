package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJDPathsMapToPointers(t *testing.T) {
	dir := t.TempDir()
	jd := filepath.Join(dir, "jd.txt")
	os.WriteFile(jd, []byte(`^ {"file":"a.jsonl"}
@ ["per_request",0,"routing_history",1,"logical_worker_id"]
- 0
+ 1
@ ["summary","a/b~c"]
- 1
+ 2
`), 0o644)
	ps, err := jdPointers(jd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ps, " ") != "/per_request/0/routing_history/1/logical_worker_id /summary/a~1b~0c" {
		t.Fatalf("pointers %v", ps)
	}
	kv := filepath.Join(dir, "kv.json")
	os.WriteFile(kv, []byte(`{"pointers":["/summary/a~1b~0c","/per_request/0/routing_history/1/logical_worker_id"]}`), 0o644)
	if err := compare(jd, kv); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(kv, []byte(`{"pointers":["/summary/a~1b~0c","/summary/x"]}`), 0o644)
	if err := compare(jd, kv); err == nil || !strings.Contains(err.Error(), "1 only in jd") || !strings.Contains(err.Error(), "1 only in kvparity") {
		t.Fatalf("want a mismatch, got %v", err)
	}
	os.WriteFile(jd, []byte("@ [oops\n"), 0o644)
	if _, err := jdPointers(jd); err == nil || !strings.Contains(err.Error(), "jd.txt:1:") {
		t.Fatalf("bad jd line: %v", err)
	}
}

func TestPerturbEditsOnePercent(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString(`{"per_request":[`)
	for i := 0; i < 300; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"routing_history":[{"logical_worker_id":0}],"terminal_time_ms":10.5,"uuid":"u"}`)
	}
	sb.WriteString(`],"summary":{"x":4.0}}` + "\n")
	in, out := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(in, []byte(sb.String()), 0o644)
	if err := perturb(in, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), `"terminal_time_ms":10.623076`); n != 3 {
		t.Fatalf("%d edited terminal times, want 3", n)
	}
	if n := strings.Count(string(b), `"logical_worker_id":1`); n != 3 {
		t.Fatalf("%d flipped workers, want 3", n)
	}
	if !strings.Contains(string(b), `"x":4.0`) {
		t.Fatal("number literals must stay verbatim")
	}
}
