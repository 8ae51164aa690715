// Package realrow holds the end-to-end tests of the shipped real Dynamo rows: two published
// versions built from source and run headless to their report (determinism, parity, lifecycle
// evidence, the perf and footprint gates, the golden digests), the stage-6 fixtures on a real
// build, and stage 7's investigation naming a calibrated slowdown (on a real arm, and on the
// embedded engine beside it: the two share their check). They skip naming the one command that builds what is missing, or the load that
// blocked the perf stage; under CI they never skip. They run the kvparity binary through the
// e2e harness, from the repository's root. Beside the tests, NeedBuilds (and Row, the shipped
// real row) is the gate every real-row test passes first, the Slurm matrix's in package main
// too; it imports engine to ask which of a row's arms are not built yet (UnbuiltArms).
package realrow
