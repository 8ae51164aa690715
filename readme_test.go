package main

import (
	"os"
	"strings"
	"testing"
)

// Issue 44, item D: every command the README and the docs show runs a kvparity binary, and the
// quick start never built one. It still leads with its two set-up commands, unchanged, and
// builds the binary before the first command that runs it.
func TestReadmeBuildsTheBinaryItsCommandsRun(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	build, first := -1, -1
	var commands []string
	inBlock := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock && build < 0 {
			commands = append(commands, l)
		}
		if build < 0 && inBlock && strings.HasPrefix(l, "go build -o kvparity .") {
			build = i
		}
		if first < 0 && (strings.Contains(l, "`kvparity ") || inBlock && strings.HasPrefix(l, "kvparity ")) {
			first = i
		}
	}
	if build < 0 || first >= 0 && first < build {
		t.Fatalf("README.md: line %d runs kvparity, and no `go build -o kvparity .` comes before it (line %d)", first+1, build+1)
	}
	if len(commands) < 2 || !strings.HasPrefix(commands[0], "go run .  ") || !strings.HasPrefix(commands[1], "go test -race ./...  ") {
		t.Fatalf("README.md's quick start no longer leads with `go run .` and the test command: %q", commands)
	}
}
