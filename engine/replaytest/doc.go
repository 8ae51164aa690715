// Package replaytest is the fake replay engine the engine's tests and its stage packages' tests
// run: a test binary started with Env set acts as `kvparity replay` (the flags of
// offline_replay_bench plus --variant and --progress-file), its report's bytes depending on
// the trace window and the variant, so the runner, the journal and every stage are exercised
// end to end without building anything.
//
// It imports no kvparity package: engine's own tests use it, so it must not import engine.
// golang.org/x/sys/unix reads the affinity mask a leak-all-cores variant leaks.
package replaytest
