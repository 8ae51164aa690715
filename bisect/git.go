package bisect

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// A Commit is one commit of the bisected history as the result names it.
type Commit struct {
	SHA        string `json:"sha"`
	Subject    string `json:"subject"`
	AuthorDate string `json:"author_date"` // ISO 8601, as git prints %aI
	// DiffStat is `git diff --stat` against its first parent.
	DiffStat string `json:"diff_stat,omitempty"`
}

// Short is the commit's abbreviated SHA (12 digits, as probe folders are named).
func (c Commit) Short() string { return short(c.SHA) }

func short(sha string) string { return sha[:min(12, len(sha))] }

// git runs git in repo and returns its output. kvparity only reads the checkout: the index
// lock is never taken (GIT_OPTIONAL_LOCKS=0).
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), repo, err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// resolve names the full commit a ref of repo points to.
func resolve(ctx context.Context, repo, ref string) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("%q is not a ref (a branch, tag, HEAD or commit)", ref)
	}
	out, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s has no commit %s", repo, ref)
	}
	return strings.TrimSpace(out), nil
}

// history is the first-parent history from good (excluded) to bad (included), oldest first.
// It refuses a good commit that is not on bad's first-parent line: the commits listed would
// not all descend from it, and "good" would not bound them.
func history(ctx context.Context, repo, good, bad string) ([]string, error) {
	out, err := git(ctx, repo, "rev-list", "--first-parent", "--reverse", good+".."+bad)
	if err != nil {
		return nil, err
	}
	commits := strings.Fields(out)
	if len(commits) == 0 {
		return nil, fmt.Errorf("--bad %s has no commit after --good %s on its first-parent history (is --good an ancestor of --bad?)", short(bad), short(good))
	}
	parent, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", commits[0]+"^1")
	if err != nil || strings.TrimSpace(parent) != good {
		return nil, fmt.Errorf("--good %s is not on the first-parent history of --bad %s (the oldest commit after it, %s, does not have it as first parent): give a --good on that line", short(good), short(bad), short(commits[0]))
	}
	return commits, nil
}

// describe reads a commit's subject, author date and diff stat against its first parent.
func describe(ctx context.Context, repo, sha string) (Commit, error) {
	out, err := git(ctx, repo, "show", "-s", "--format=%H%x00%s%x00%aI", sha)
	if err != nil {
		return Commit{}, err
	}
	f := strings.SplitN(strings.TrimSpace(out), "\x00", 3)
	if len(f) != 3 {
		return Commit{}, fmt.Errorf("git show %s: unexpected output %q", sha, out)
	}
	c := Commit{SHA: f[0], Subject: f[1], AuthorDate: f[2]}
	if stat, err := git(ctx, repo, "diff", "--stat", sha+"^1", sha); err == nil {
		c.DiffStat = strings.TrimRight(stat, "\n")
	}
	return c, nil
}

// describeAll describes the commits of a history after good (subject and author date, no diff
// stat) with one git log; a commit it does not list (a history rewritten since a resumed
// bisect started) is described alone, or by its SHA only.
func describeAll(ctx context.Context, repo, good string, commits []string) []Commit {
	known := map[string]Commit{}
	if out, err := git(ctx, repo, "log", "--first-parent", "--format=%H%x00%s%x00%aI", good+".."+commits[len(commits)-1]); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.SplitN(l, "\x00", 3); len(f) == 3 {
				known[f[0]] = Commit{SHA: f[0], Subject: f[1], AuthorDate: f[2]}
			}
		}
	}
	out := make([]Commit, len(commits))
	for i, sha := range commits {
		c, ok := known[sha]
		if !ok {
			c = Commit{SHA: sha}
			if d, err := describe(ctx, repo, sha); err == nil {
				c, c.DiffStat = d, ""
			}
		}
		out[i] = c
	}
	return out
}
