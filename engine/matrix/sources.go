package matrix

import (
	"context"
	"fmt"
	"path/filepath"

	"kvparity/engine"
	"kvparity/engine/build"
)

// Rows whose arms name sources are built once, by the matrix, before any job starts: into the
// build cache the jobs read (Options.buildCache, exported to every job as KVPARITY_BUILD_CACHE),
// so no node compiles, and every node runs the same binary (each job pins the cached build by
// its key and checksums). The toolchain the matrix built with is recorded in that cache, so a
// node without Rust still finds the builds. A matrix names immutable sources only: a published
// crate, or a checkout's full commit — a branch or a working tree can move between the build
// and a job that starts hours later on another node.

// buildSources builds every source arm of the matrix's rows, or finds it in the cache.
func (m *matrix) buildSources(ctx context.Context) error {
	any := false
	for _, r := range m.rows {
		row := *r.row
		row.WithBaseDir(filepath.Dir(r.file))
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			spec := row.Arm(arm)
			if !spec.FromSource() {
				continue
			}
			any = true
			src, err := engine.ParseSource(spec.Source)
			if err != nil {
				return &engine.RowError{File: r.file, Table: string(arm), Key: "source", Msg: err.Error()}
			}
			if src.Moves() {
				now, err := build.Resolve(ctx, src)
				if err != nil {
					return &engine.RowError{File: r.file, Table: string(arm), Key: "source", Msg: err.Error()}
				}
				msg := fmt.Sprintf("%q names a ref that can move before a job starts: name its commit (git:%s@%s, what %s is now)", spec.Source, src.Repo, now.Commit, src.Ref)
				if now.Snapshot != "" {
					msg = fmt.Sprintf("%q: a matrix builds once and its jobs run later on other nodes: name a commit (git:%s@SHA) or a published crate, not a working tree", spec.Source, src.Repo)
				}
				return &engine.RowError{File: r.file, Table: string(arm), Key: "source", Msg: msg}
			}
		}
		if !any {
			continue
		}
		m.logf("%s: building its source arms into %s (once, for every job)", row.Name, m.o.buildCache)
		builds, err := engine.BuildArms(ctx, &row, m.o.buildCache, func(p engine.BuildProgress) {
			if p.Phase != "compiling" || p.Units%50 == 0 {
				m.logf("%s: build %s %s: %s", row.Name, p.Arm, p.Source, p.Phase)
			}
		})
		if err != nil {
			return fmt.Errorf("matrix: row %s: %w", row.Name, err)
		}
		for arm, b := range builds {
			m.logf("%s: %s %s %s → sha256 %.12s%s", row.Name, arm, b.Package, b.Version, b.BinarySHA256, map[bool]string{true: " (cached)"}[b.Cached])
		}
	}
	if any {
		return build.RecordToolchain(ctx, m.o.buildCache)
	}
	return nil
}
