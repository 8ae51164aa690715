// Package procgroup starts every external process kvparity runs (replays, cargo and git, Slurm's
// tools) the one way the project allows: an argument vector, never a shell, as the leader of its
// own process group, so that ending it ends everything it started.
package procgroup

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// WaitDelay bounds how long Wait waits for output pipes after the process exits or its group
// is killed (a grandchild that escaped the group may hold them open).
const WaitDelay = 5 * time.Second

// Command is exec.CommandContext with the process in a group of its own (Setpgid) that is killed
// whole when ctx ends, and killed by the kernel if kvparity itself dies first (Pdeathsig), so no
// process outlives the run that started it unrecorded.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return Kill(cmd.Process.Pid) }
	cmd.WaitDelay = WaitDelay
	return cmd
}

// Kill SIGKILLs the process group led by pid; a group already gone is not an error.
func Kill(pid int) error {
	if pid <= 0 {
		return nil
	}
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
