package build

import (
	"strings"
	"testing"
)

// A revision expression in a git: source is refused by what it is (issue 42): main@{1} was
// split at its own '@' and failed later as "no such folder"; HEAD~8 got the generic message.
func TestParseSpecRefusesRevisionExpressions(t *testing.T) {
	for _, in := range []string{"git:../dynamo@main@{1}", "git:../dynamo@{1}", "git:../dynamo@HEAD~8", "git:/src/dynamo@HEAD^", "git:/src/dynamo@v1^{commit}"} {
		_, err := ParseSpec(in)
		if err == nil || !strings.Contains(err.Error(), "a revision expression (~, ^, @{...}) is not a ref a row can hold: name the commit it resolves to by its full SHA") {
			t.Errorf("%s: got %v", in, err)
		}
	}
	// A path may hold '~' or '@': only the ref after the last '@' is judged.
	for in, repo := range map[string]string{"git:~/dynamo@main": "~/dynamo", "git:/a@b/dynamo@HEAD": "/a@b/dynamo"} {
		if s, err := ParseSpec(in); err != nil || s.Repo != repo {
			t.Errorf("%s: %+v %v", in, s, err)
		}
	}
}
