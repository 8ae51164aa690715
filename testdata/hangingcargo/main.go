// Command hangingcargo plays rustc and cargo for the build-cancel test: it answers the
// toolchain's version questions and hangs on anything else (a fetch, a build), writing its pid
// to $HANGING_CARGO_PIDS so the test can check that cancelling killed it.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	switch {
	case name == "rustc" && len(args) == 1 && args[0] == "-vV":
		fmt.Println("rustc 1.95.0-hanging (0000000 2026-04-14)\nhost: x86_64-unknown-linux-gnu")
		return
	case name == "cargo" && len(args) == 1 && args[0] == "-V":
		fmt.Println("cargo 1.95.0-hanging")
		return
	}
	if p := os.Getenv("HANGING_CARGO_PIDS"); p != "" {
		f, _ := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	time.Sleep(10 * time.Minute)
}
