package build

import (
	"fmt"
	"strings"
)

// The desk profile is the desk loop's fast build (issue 44): the checkout's own release profile
// with link-time optimization off, many codegen units and incremental compilation, so a
// one-line edit recompiles one crate in parallel and relinks without LTO. Everything else the
// release profile sets (opt-level, panic strategy, overflow checks, debug assertions) is
// inherited, so the replay computes the same thing: the determinism and parity verdicts carry
// over, and docs/desk-loop.md shows the digests equal under both profiles on real Dynamo. What
// does not carry over is speed and size: a desk build is not the release artifact, so the
// performance stage and the footprint refuse it.
const (
	// ProfileRelease is the protocol's artifact: the checkout's release profile as it is.
	ProfileRelease = "release"
	// ProfileDesk is the desk loop's fast profile, derived from the release profile.
	ProfileDesk = "desk"
)

// DeskNote is what every surface says of a desk build.
const DeskNote = "desk build, not the release artifact"

// deskCargoProfile is cargo's name for the desk profile: a custom profile defined on the
// command line (deskConfig), so the checkout's manifest is left as it is and its target folder
// keeps release and desk outputs apart (target/release, target/kvparity-desk).
const deskCargoProfile = "kvparity-desk"

// deskSettings are what the desk profile changes of the release profile it inherits.
var deskSettings = []struct{ key, value string }{
	{"lto", `"off"`},
	{"codegen-units", "256"},
	{"incremental", "true"},
	{"debug", `"` + lineTables + `"`}, // as every release build gets it (buildEnv)
}

// CheckProfile says what is wrong with a row's profile value ("" is the release profile).
func CheckProfile(p string) error {
	switch p {
	case "", ProfileRelease, ProfileDesk:
		return nil
	}
	return fmt.Errorf("%q is not a build profile: %q (the checkout's release profile, what an arm without the key builds) or %q (the desk loop's fast build; %s)", p, ProfileRelease, ProfileDesk, DeskNote)
}

// ProfileName is a recorded build profile as people read it ("" is the release profile).
func ProfileName(p string) string {
	if p == "" {
		return ProfileRelease
	}
	return p
}

// desk says the spec asks for the desk profile.
func (s Spec) desk() bool { return s.Profile == ProfileDesk }

// recordedProfile is the build_profile a build of s records: ProfileDesk, or "" for the release
// profile (records from before profiles were named have none).
func (s Spec) recordedProfile() string {
	if s.desk() {
		return ProfileDesk
	}
	return ""
}

// profileArgs are cargo build's arguments that select the spec's profile.
func (s Spec) profileArgs() []string {
	if !s.desk() {
		return []string{"--release"}
	}
	args := []string{"--profile", deskCargoProfile, "--config", "profile." + deskCargoProfile + `.inherits="release"`}
	for _, kv := range deskSettings {
		args = append(args, "--config", "profile."+deskCargoProfile+"."+kv.key+"="+kv.value)
	}
	return args
}

// deskProfileText states the desk profile in a build's record: what it changes of the release
// profile the manifest sets.
func deskProfileText(release string) string {
	changed := make([]string, len(deskSettings))
	for i, kv := range deskSettings {
		changed[i] = kv.key + " = " + kv.value
	}
	return fmt.Sprintf("%s (%s): the checkout's %s with %s", ProfileDesk, DeskNote, release, strings.Join(changed, ", "))
}

// Desk says the build used the desk profile: not the release artifact.
func (i Info) Desk() bool { return i.BuildProfile == ProfileDesk }
