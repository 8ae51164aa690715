// Package chaos holds the end-to-end chaos tests of a campaign (issue 25): kvparity killed with
// SIGKILL at random moments and resumed, two writers on one campaign, a follower during the
// perf stage, SIGHUP and SIGTERM mid-stage (the replay's own children included) and a tmux
// session killed under the workbench. Each asserts that nothing recorded is lost, no verdict is
// false and nothing is left running. It has tests only; they run the kvparity binary through
// the e2e harness, in a package of their own for go test's per-package time.
package chaos
