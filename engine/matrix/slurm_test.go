package matrix

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Outputs below are copied from Slurm 22.05 (Debian bookworm's slurm-wlm) on the one-node
// cluster of scripts/slurm-up.sh.

func TestParseSbatch(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"123\n", "123"},
		{"4567;cluster-a\n", "4567"},
		{"sbatch: warning: can't honor --ntasks-per-node\n89\n", "89"},
	} {
		got, err := parseSbatch(c.out)
		if err != nil || got != c.want {
			t.Errorf("parseSbatch(%q) = %q, %v; want %q", c.out, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "Submitted batch job 12\n", "abc"} {
		if _, err := parseSbatch(bad); err == nil || !strings.Contains(err.Error(), "not a job id") {
			t.Errorf("parseSbatch(%q): want a 'not a job id' error, got %v", bad, err)
		}
	}
}

func TestParseSqueue(t *testing.T) {
	out := "1|COMPLETED|vm|None\n12|PENDING||Resources\n13|RUNNING|node07|None\n"
	info, ok := parseSqueue(out, "12")
	if !ok || info.State != JobPending || info.Node != "" || info.Reason != "Resources" {
		t.Fatalf("job 12: %+v %v", info, ok)
	}
	info, ok = parseSqueue(out, "13")
	if !ok || info.State != JobRunning || info.Node != "node07" || info.Reason != "" || info.Source != "squeue" {
		t.Fatalf("job 13: %+v %v", info, ok)
	}
	if _, ok := parseSqueue(out, "2"); ok {
		t.Fatal("job 2 is not in the output")
	}
}

func TestParseScontrol(t *testing.T) {
	out := "JobId=3 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901757 Nice=0 " +
		"Account=(null) QOS=(null) JobState=CANCELLED Reason=None Dependency=(null) Requeue=1 Restarts=0 " +
		"BatchFlag=1 Reboot=0 ExitCode=0:15 RunTime=00:00:04 TimeLimit=UNLIMITED ReqNodeList=(null) " +
		"ExcNodeList=(null) NodeList=vm BatchHost=vm NumNodes=1\n"
	info, ok := parseScontrol(out)
	if !ok {
		t.Fatal("no JobState found")
	}
	if info.ID != "3" || info.State != JobCancelled || info.Node != "vm" || info.ExitCode != 0 || info.Signal != 15 || info.Reason != "" {
		t.Fatalf("got %+v", info)
	}
	info, _ = parseScontrol("JobId=9 JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0 NodeList=vm")
	if info.State != JobFailed || info.ExitCode != 1 || info.Reason != "NonZeroExitCode" {
		t.Fatalf("got %+v", info)
	}
	if _, ok := parseScontrol("slurm_load_jobs error: Invalid job id specified"); ok {
		t.Fatal("an error line has no JobState")
	}
}

func TestParseSacct(t *testing.T) {
	out := "41|CANCELLED by 0|node3|0:15|None\n42|NODE_FAIL|node4|0:0|None\n43|FAILED|node5|2:0|NonZeroExitCode\n"
	for _, c := range []struct {
		id    string
		state JobState
		code  int
		sig   int
		env   bool
	}{
		{"41", JobCancelled, 0, 15, true},
		{"42", JobNodeFail, 0, 0, true},
		{"43", JobFailed, 2, 0, false},
	} {
		info, ok := parseSacct(out, c.id)
		if !ok || info.State != c.state || info.ExitCode != c.code || info.Signal != c.sig || info.State.environmental() != c.env {
			t.Errorf("job %s: %+v (ok %v), want state %s exit %d:%d environmental %v", c.id, info, ok, c.state, c.code, c.sig, c.env)
		}
	}
}

// The protocol lets only predeclared environmental conditions (scheduler eviction, node
// failure) void work; a job that ran out of memory or failed is the row's own problem.
func TestJobStateClassification(t *testing.T) {
	env := []JobState{JobCancelled, JobTimeout, JobNodeFail, JobPreempted, JobBootFail, JobDeadline}
	for _, s := range env {
		if !s.Terminal() || !s.environmental() {
			t.Errorf("%s: want terminal and environmental", s)
		}
	}
	for _, s := range []JobState{JobCompleted, JobFailed, JobOutOfMemory} {
		if !s.Terminal() || s.environmental() {
			t.Errorf("%s: want terminal, not environmental", s)
		}
	}
	for _, s := range []JobState{JobPending, JobRunning, "COMPLETING", "CONFIGURING", "SUSPENDED", "REQUEUED"} {
		if s.Terminal() {
			t.Errorf("%s: still active, not terminal", s)
		}
	}
	if stateWord("CANCELLED by 1000") != JobCancelled || stateWord(" RUNNING ") != JobRunning {
		t.Error("stateWord keeps only the state word")
	}
}

func TestSlurmMissingToolIsNamed(t *testing.T) {
	s := &Slurm{sbatch: "/nonexistent/sbatch"}
	err := s.Available(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/sbatch") || !strings.Contains(err.Error(), "docs/slurm.md") {
		t.Fatalf("want an error naming the missing sbatch and the docs, got %v", err)
	}
	_, err = s.submit(context.Background(), "/tmp/job.sh", []string{"--partition=p"})
	var se *slurmError
	if !errors.As(err, &se) || se.Args[0] != "/nonexistent/sbatch" || !strings.Contains(err.Error(), "/nonexistent/sbatch --parsable --partition=p /tmp/job.sh") {
		t.Fatalf("want a SlurmError carrying the argument vector, got %v", err)
	}
	if got := strings.Join(s.submitArgs("/d/job.sh", []string{"--partition=p", "--qos=high"}), " "); got != "/nonexistent/sbatch --parsable --partition=p --qos=high /d/job.sh" {
		t.Fatalf("SubmitArgs: %s", got)
	}
}
