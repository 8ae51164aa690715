package build

import (
	"slices"
	"strings"
)

// buildEnv is what kvparity sets for cargo build (after the caller's environment, so it wins):
// the target folder (the entry's work folder, or a checkout's lineage), plain output, and line
// tables in every build.
func buildEnv(target string) []string {
	return []string{"CARGO_TARGET_DIR=" + target, "CARGO_TERM_COLOR=never", "CARGO_TERM_PROGRESS_WHEN=never",
		"CARGO_PROFILE_RELEASE_DEBUG=" + lineTables}
}

// compilationVars and compilationPrefixes are the variables of the caller's environment that
// change what cargo and rustc compile: flags, the compiler and its wrappers, and cargo's
// [build], [profile] and [target] settings. Locations (CARGO_HOME, the target folder), the job
// count, network and output settings change no generated code; the toolchain itself is
// identified by rustc -vV.
var (
	compilationVars     = []string{"RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTC_BOOTSTRAP", "CARGO_INCREMENTAL"}
	compilationPrefixes = []string{"CARGO_BUILD_", "CARGO_PROFILE_", "CARGO_TARGET_", "CARGO_UNSTABLE_"}
	noCompilation       = []string{"CARGO_BUILD_JOBS", "CARGO_BUILD_TARGET_DIR"}
)

// buildEnvironment is the part of environ that the build inherits and depends on (NAME=value,
// sorted), leaving out what buildEnv sets over it.
func buildEnvironment(environ []string) []string {
	set := map[string]bool{}
	for _, kv := range buildEnv("") {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	byName := map[string]string{} // a name given twice: the last wins, as for the process
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || set[name] || slices.Contains(noCompilation, name) {
			continue
		}
		if slices.Contains(compilationVars, name) || slices.ContainsFunc(compilationPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			byName[name] = kv
		}
	}
	out := []string{} // recorded as [] (none), not null (not recorded)
	for _, kv := range byName {
		out = append(out, kv)
	}
	slices.Sort(out)
	return out
}
