package e2e

import (
	"bytes"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A Proc is a kvparity a test started and signals, kills or waits for: in a process group of
// its own (its replays are in groups of their own), killed with its group when the test ends.
type Proc struct {
	Cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	errb bytes.Buffer
}

// Start starts bin with args in a process group of its own, its stderr kept (Stderr).
func Start(t testing.TB, bin string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.Cmd.Stderr = lockedWriter{p}
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done: // ended: its group's id may be another's by now
			return
		default:
		}
		p.KillGroup()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
		}
	})
	return p
}

type lockedWriter struct{ p *Proc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.errb.Write(b)
}

// Pid is the kvparity process's (and its group's) id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Done is closed when the process has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Signal sends sig to kvparity alone, as a terminal or kill sends it.
func (p *Proc) Signal(sig syscall.Signal) { syscall.Kill(p.Pid(), sig) }

// KillGroup SIGKILLs kvparity's whole process group.
func (p *Proc) KillGroup() { syscall.Kill(-p.Pid(), syscall.SIGKILL) }

// Wait waits for the process to end, at most d: it reports whether it ended.
func (p *Proc) Wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// ExitCode is the ended process's exit status (-1 when a signal ended it).
func (p *Proc) ExitCode() int {
	<-p.done
	return p.Cmd.ProcessState.ExitCode()
}

// Stderr is what the process wrote on stderr so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errb.String()
}
