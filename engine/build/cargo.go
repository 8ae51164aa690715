package build

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"kvparity/internal/procgroup"
)

// run executes one tool in its own process group (procgroup), killed whole when ctx ends. It
// returns stdout; an error carries the last lines of stderr.
func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := procgroup.Command(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out bytes.Buffer
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &out, stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.Bytes(), fmt.Errorf("%s %s: cancelled", name, strings.Join(args, " "))
	}
	if err != nil {
		return out.Bytes(), toolError(name, args, err, stderr.String())
	}
	return out.Bytes(), nil
}

// toolError names the command and keeps the lines of its stderr that say what went wrong.
func toolError(name string, args []string, err error, stderr string) error {
	var ee *exec.ExitError
	if errors.Is(err, exec.ErrNotFound) {
		return &toolNotFound{name: name}
	}
	what := err.Error()
	if errors.As(err, &ee) {
		what = ee.String()
	}
	tail := strings.TrimSpace(stderr)
	lines := strings.Split(tail, "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return fmt.Errorf("%s %s: %s\n%s", name, strings.Join(args, " "), what, strings.Join(lines, "\n"))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// progressEvery is the longest cargoBuild stays silent: cargo prints nothing through a long
// link (LTO of the bench, minutes), so the progress is said again, with the crate and a fresh
// elapsed time, once this long has passed without news. Checked three times as often, the
// reports come at most 4 s apart, and the headless printer (a line at most every 5 s) prints
// one at least every 8 s.
var progressEvery = 3 * time.Second

// cargoBuild runs `cargo build --message-format=json-render-diagnostics` and reports progress:
// every compiled unit from the JSON messages on stdout, the crate being compiled from the
// "Compiling" lines on stderr, and the same again whenever cargo was silent for progressEvery.
// It returns the executable of the bench target, the units cargo compiled and those it found
// fresh (an incremental build's untouched crates).
func cargoBuild(ctx context.Context, dir string, env, args []string, bench string, progress func(units int, current string)) (exe string, units, fresh int, err error) {
	cmd := procgroup.Command(ctx, "cargo", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, 0, err
	}
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		return "", 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, 0, toolError("cargo", args, err, "")
	}
	var (
		mu      sync.Mutex
		current string
		tail    = &tailBuffer{max: 64 << 10}
		wg      sync.WaitGroup
		said    = time.Now() // the last report
	)
	report := func() {
		said = time.Now()
		if progress != nil {
			progress(units, current)
		}
	}
	quiet, ticked := make(chan struct{}), make(chan struct{})
	go func() { // cargo silent (a long link): say where it is, with the time so far
		defer close(ticked)
		t := time.NewTicker(progressEvery / 3)
		defer t.Stop()
		for {
			select {
			case <-quiet:
				return
			case <-t.C:
				mu.Lock()
				if time.Since(said) >= progressEvery {
					report()
				}
				mu.Unlock()
			}
		}
	}()
	wg.Add(2)
	go func() { // stderr: "   Compiling tokio v1.47.1", warnings, errors
		defer wg.Done()
		sc := bufio.NewScanner(stderrPipe)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			tail.Write([]byte(line + "\n"))
			if c, ok := strings.CutPrefix(strings.TrimSpace(line), "Compiling "); ok {
				mu.Lock()
				current = c
				report()
				mu.Unlock()
			}
		}
	}()
	go func() { // stdout: one JSON message per line
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m struct {
				Reason     string `json:"reason"`
				Executable string `json:"executable"`
				Fresh      bool   `json:"fresh"`
				Target     struct {
					Name string   `json:"name"`
					Kind []string `json:"kind"`
				} `json:"target"`
				Message struct {
					Rendered string `json:"rendered"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			mu.Lock()
			switch m.Reason {
			case "compiler-artifact":
				if m.Fresh {
					fresh++
				} else {
					units++
				}
				if m.Target.Name == bench && m.Executable != "" {
					exe = m.Executable
				}
				report()
			case "compiler-message":
				tail.Write([]byte(m.Message.Rendered))
			}
			mu.Unlock()
		}
		io.Copy(io.Discard, stdout)
	}()
	wg.Wait()
	close(quiet)
	<-ticked // no report after the build's own end
	if err := cmd.Wait(); err != nil {
		return "", units, fresh, toolError("cargo", args, err, tail.String())
	}
	if exe == "" {
		return "", units, fresh, fmt.Errorf("cargo %s: finished without building the %s bench executable", strings.Join(args, " "), bench)
	}
	return exe, units, fresh, nil
}
