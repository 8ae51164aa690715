package main

import (
	"os"
	"testing"

	"kvparity/e2e"
)

// The commands' end-to-end tests share one kvparity binary, built on first use and removed
// after them (e2e.Main).
func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
