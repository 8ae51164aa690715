// Package run starts the replay processes of a campaign and answers for them: each replay an
// OS process started with exec and an argument vector (never a shell), the leader of its own
// process group, pinned to its CPU set from birth, with a timeout, capped output, its stderr
// and progress side channel followed live (Tailer, told to an Observer), and every descendant
// reaped when it ends (reap.go: the child subreaper, orphans, and the strays of a killed
// kvparity, KillStrays). It also holds what names a process: the Owner (pid + start time +
// boot) that run_start records, and the campaign lock (one writer, naming its Holder).
//
// It knows nothing of rows, arms, stages or the journal: the engine builds each Spec from the
// pinned artifact and records what the Result says. It imports report for the pressure records
// a replay announces on its side channel, internal/atomicfile to open run folders and the lock
// file without following links, internal/layout for the lock file's name, and
// internal/procgroup for the process groups.
//
// # Layout
//
//	runner.go    Runner.Run: one process, Spec → Result; pinning, timeouts, output caps
//	observer.go  the Observer a Runner tells what a running replay says, and Progress
//	tail.go      Tailer: a replay's stderr and progress side channel, followed
//	reap.go      the subreaper, orphans, strays of runs without an end, /proc reading
//	cpus.go      CPU lists (allowed, parsed, formatted), numa.go NUMA nodes
//	owner.go     Owner: a process named so a later one can tell whether it still runs
//	lock.go      campaign.lock: one writer at a time, naming its holder
package run
