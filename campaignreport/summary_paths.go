package campaignreport

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// localPaths rewrites what summary.md and report.md would otherwise say as a machine-local
// absolute path (reasons, errors and build commands quote them): the campaign folder becomes
// relative ("."), a pinned artifact's source binary its arm's name, the user cache folder
// (kvparity's build cache is in it) and the home folder words. report.json keeps them.
func localPaths(r *Report) *strings.Replacer {
	type pair struct{ old, new string }
	var ps []pair
	if r.dir != "" {
		ps = append(ps, pair{r.dir + string(filepath.Separator), ""}, pair{r.dir, "."})
	}
	for _, a := range r.Artifacts {
		if filepath.IsAbs(a.Source) {
			ps = append(ps, pair{a.Source, binaryWords(a)})
		}
	}
	if d, err := os.UserCacheDir(); err == nil && filepath.IsAbs(d) { // kvparity's build cache is in it
		ps = append(ps, pair{d + string(filepath.Separator), "(the user cache folder)/"})
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && h != "/" {
		ps = append(ps, pair{h + string(filepath.Separator), "~/"})
	}
	// The longest first: a path inside another is replaced whole.
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].old) > len(ps[j].old) })
	args := make([]string, 0, 2*len(ps))
	for _, p := range ps {
		args = append(args, p.old, p.new)
	}
	return strings.NewReplacer(args...)
}

// plainName is a file name that reads the same as Markdown text, in a code span and in HTML:
// letters and digits, one of "._+-" between them.
var plainName = regexp.MustCompile(`^[A-Za-z0-9]+(?:[._+-][A-Za-z0-9]+)*$`)

// binaryWords is what replaces a pinned artifact's machine-local source path: its arm's name
// with the file's name. The replacement is made in the finished Markdown, where no escaping
// follows, so a name that is not plain is left out rather than written raw.
func binaryWords(a ArtifactInfo) string {
	if base := filepath.Base(a.Source); plainName.MatchString(base) {
		return "the " + string(a.Arm) + " binary (" + base + ")"
	}
	return "the " + string(a.Arm) + " binary"
}

// traceLabel is the trace window as summary.md names it: a trace file by its name only.
func traceLabel(t traceInfo) string {
	if filepath.IsAbs(t.Source) {
		return filepath.Base(t.Source) + strings.TrimPrefix(t.Spec, t.Source)
	}
	return t.Spec
}
