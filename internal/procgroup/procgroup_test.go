package procgroup

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A cancelled command takes its whole group with it: the child's own child dies too.
func TestCancelKillsTheWholeGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, "sh", "-c", "sleep 30 & echo $!; wait")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	if err != nil || pgid != cmd.Process.Pid {
		t.Fatalf("child is not its group's leader: pgid %d, pid %d, %v", pgid, cmd.Process.Pid, err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the grandchild's pid: %q: %v", line, err)
	}
	cancel()
	cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(grandchild) {
			return
		}
	}
	t.Fatalf("grandchild %d outlived its cancelled group", grandchild)
}

func TestKillOfAGoneGroupIsNotAnError(t *testing.T) {
	if err := Kill(0); err != nil {
		t.Fatal(err)
	}
	cmd := Command(context.Background(), "true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := Kill(cmd.Process.Pid); err != nil {
		t.Fatalf("kill of an exited group: %v", err)
	}
}

// alive reports whether pid is a live process (a zombie awaiting its reaper is dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
