package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// The timing extension (protocol stage 1.3's determinism patch, identical for both arms): the
// protocol times the replay loop, which published harnesses do not expose (wall_time_ms also
// covers engine setup and report finalization; replay_call_ms the whole library call). The
// extension records, per thread, the wall time of the composed runtime's run() call inside
// Replayer::run_inner of the replay core crate (after composing the runtime, before
// collector.finish()), and the harness writes it as replay_execution_ms in its timing line.
// Nothing touches the report, so canonical bytes are unchanged.
//
// Each edit is anchored on code that must appear exactly as expected; where a version's code has
// another shape, kvparity refuses and names the file and function it expected. It never patches
// a guess.

// ReplayCrate is the crate whose Replayer::run_inner holds the replay loop.
const ReplayCrate = "aisimulate-core"

// An edit inserts (or replaces with) code at an anchor.
type edit struct {
	file   string // relative to its package root
	within string // the function the anchor must lie in ("" for anywhere in the file)
	after  string // the anchor is looked for after this marker (which must occur once there)
	anchor string
	count  int    // how many times the anchor must occur; 0: the first occurrence is used
	mode   string // "before", "after", "replace" (every occurrence), "append" (end of file)
	code   string
}

const benchTimingModule = `
/// kvparity timing extension (bench only): the wall time of the composed runtime's run() call
/// in the most recent Replayer::run_inner on this thread, after runtime composition and before
/// report finalization. It never touches the report.
#[doc(hidden)]
pub mod bench_timing {
    use std::cell::Cell;
    use std::time::Duration;

    thread_local! {
        static LAST_REPLAY_EXECUTION: Cell<Option<Duration>> = const { Cell::new(None) };
    }

    pub(crate) fn clear() {
        LAST_REPLAY_EXECUTION.with(|c| c.set(None));
    }

    fn record(elapsed: Duration) {
        LAST_REPLAY_EXECUTION.with(|c| c.set(Some(elapsed)));
    }

    /// The timed region: run() between two clock reads, recorded. Never inlined, so that an
    /// instruction counter can count exactly this region by its name (callgrind's
    /// --toggle-collect=*bench_timing::timed_region*; kvparity's instruction instrument).
    #[inline(never)]
    pub(crate) fn timed_region<T>(run: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let result = run();
        record(start.elapsed());
        result
    }

    /// Takes (and clears) the last recorded replay execution time.
    pub fn take_last_replay_execution() -> Option<Duration> {
        LAST_REPLAY_EXECUTION.with(|c| c.take())
    }
}
`

const benchFingerprintModule = `
/// kvparity work fingerprint (bench only): what the replay did, counted as it runs without
/// capturing per-request records (one addition per pressure event and admission, one 64-bit
/// hash per placement), read by the harness after the timed call. kvparity computes the same
/// from a canonical record; placement() must stay equal to its report.PlacementSum.
#[doc(hidden)]
pub mod bench_fingerprint {
    use super::ReplayRequestPool;
    use std::cell::Cell;
    use uuid::Uuid;

    #[derive(Clone, Copy, Debug, Default)]
    pub struct Work {
        pub pressure_events: u64,
        pub admissions: u64,
        pub placements: u64,
        pub placement_sum: u64,
    }

    thread_local! {
        static WORK: Cell<Work> = const {
            Cell::new(Work { pressure_events: 0, admissions: 0, placements: 0, placement_sum: 0 })
        };
    }

    fn update(f: impl FnOnce(&mut Work)) {
        WORK.with(|c| {
            let mut w = c.get();
            f(&mut w);
            c.set(w);
        });
    }

    pub(crate) fn pressure() {
        update(|w| w.pressure_events += 1);
    }

    pub(crate) fn admission() {
        update(|w| w.admissions += 1);
    }

    /// FNV-1a 64 over the uuid's 16 bytes, the pool's index, the worker (u64 LE) and the dp
    /// rank (u32 LE), then splitmix64's finalizer, added modulo 2^64: order-free.
    pub(crate) fn placement(uuid: Uuid, pool: ReplayRequestPool, worker: usize, dp_rank: u32) {
        let pool_index: u8 = match pool {
            ReplayRequestPool::Agg => 0,
            ReplayRequestPool::Prefill => 1,
            ReplayRequestPool::Decode => 2,
        };
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let bytes = uuid.as_bytes().iter().copied().chain([pool_index])
            .chain((worker as u64).to_le_bytes()).chain(dp_rank.to_le_bytes());
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        update(|w| {
            w.placements += 1;
            w.placement_sum = w.placement_sum.wrapping_add(z);
        });
    }

    /// Takes (and clears) what was counted on this thread.
    pub fn take() -> Work {
        WORK.with(|c| c.replace(Work::default()))
    }
}
`

// The harness's work fingerprint (report.WorkFingerprint, scheme kvparity.work.v1): the
// report's totals, which a timed run computes anyway, and the counters above.
const harnessFingerprint = `let work_fingerprint = {
    let work = aisimulate_core::replay::bench_fingerprint::take();
    serde_json::json!({
        "scheme": "kvparity.work.v1",
        "duration_ms": report.throughput.duration_ms,
        "num_requests": report.request_counts.num_requests,
        "completed_requests": report.request_counts.completed_requests,
        "total_input_tokens": report.request_counts.total_input_tokens,
        "total_output_tokens": report.request_counts.total_output_tokens,
        "prefix_cache_reused_ratio": report.prefix_cache_reused_ratio,
        "first_admission_prefix_cache_reused_ratio": report.first_admission_prefix_cache_reused_ratio,
        "pressure_events": work.pressure_events,
        "admissions": work.admissions,
        "placements": work.placements,
        "placement_digest": format!("{:016x}", work.placement_sum),
    })
};`

// The collector's per-request hooks return early when nothing is captured; the fingerprint
// counts before that, so a timed run counts what a canonical run records.
const detailGuard = "let Some(detail) = self.detail_mut(uuid) else {"

// replayEdits apply to the replay core crate.
var replayEdits = []edit{
	{file: "src/replay/replayer.rs", within: "fn run_inner(", anchor: "let wall_start = Instant::now();", count: 1, mode: "after",
		code: "bench_timing::clear();"},
	{file: "src/replay/replayer.rs", within: "fn run_inner(", anchor: "runtime.run().map_err(runtime_error)?.0", count: 2, mode: "replace",
		code: "bench_timing::timed_region(|| runtime.run()).map_err(runtime_error)?.0"},
	{file: "src/replay/replayer.rs", mode: "append", code: benchTimingModule},
	{file: "src/replay/mod.rs", anchor: "pub use replayer::{ReplayComposition, Replayer, RoundRobinComposition};", count: 1, mode: "after",
		code: "#[doc(hidden)]\npub use replayer::bench_timing;"},
	// The work fingerprint's counters.
	{file: "src/replay/report.rs", within: "fn on_route_immediate(", anchor: detailGuard, count: 1, mode: "before",
		code: "bench_fingerprint::placement(uuid, pool, logical_worker_id, dp_rank);"},
	{file: "src/replay/report.rs", within: "fn on_route_released(", anchor: detailGuard, count: 1, mode: "before",
		code: "bench_fingerprint::placement(uuid, pool, logical_worker_id, dp_rank);"},
	{file: "src/replay/report.rs", within: "fn on_pool_admission_with_tier_attribution(", anchor: detailGuard, count: 1, mode: "before",
		code: "bench_fingerprint::admission();"},
	{file: "src/replay/report.rs", mode: "append", code: benchFingerprintModule},
	{file: "src/replay/evidence.rs", within: "fn record_pressure(", anchor: "if !self.options.capture_canonical_evidence {", count: 1, mode: "before",
		code: "crate::replay::report::bench_fingerprint::pressure();"},
	{file: "src/replay/mod.rs", anchor: "pub use replayer::{ReplayComposition, Replayer, RoundRobinComposition};", count: 1, mode: "after",
		code: "#[doc(hidden)]\npub use report::bench_fingerprint;"},
}

// harnessEdits apply to the bench harness (dynamo-bench's offline_replay_bench.rs).
var harnessEdits = []edit{
	// Seeded timed runs: the published harness selects the canonical determinism mode (ordinal
	// request ids, the canonical selector seed) only when it captures a canonical report, which
	// a timed run must not; a replay-bench build now always runs it, capturing nothing more.
	{file: "offline_replay_bench.rs", within: "fn canonical_capture_options(", anchor: "determinism: if enabled {", count: 1, mode: "replace",
		code: "determinism: if enabled || cfg!(feature = \"replay-bench\") {"},
	{file: "offline_replay_bench.rs", within: "fn main(", anchor: "let report = match args.serving_mode {", count: 1, mode: "before",
		code: "let _ = aisimulate_core::replay::bench_timing::take_last_replay_execution();\nlet _ = aisimulate_core::replay::bench_fingerprint::take();"},
	{file: "offline_replay_bench.rs", within: "fn main(", anchor: "\"wall_time_ms\": report.throughput.wall_time_ms,", count: 1, mode: "after",
		code: "\"replay_execution_ms\": replay_execution_ms,\n\"work_fingerprint\": work_fingerprint,"},
	// After the library call, before the timing line is written.
	{file: "offline_replay_bench.rs", within: "fn main(", after: "let report = match args.serving_mode {",
		anchor: "if let Some(writer) = timing_writer.as_mut() {", mode: "before",
		code: "let replay_execution_ms = aisimulate_core::replay::bench_timing::take_last_replay_execution()\n    .map(|elapsed| elapsed.as_secs_f64() * 1_000.0);\n" + harnessFingerprint},
}

// ExtensionSHA256 identifies the extension's code (the edits, not a version's file contents):
// the determinism-patch checksum recorded for both arms.
func ExtensionSHA256() string {
	h := sha256.New()
	hashEdits(h, append(append([]edit{}, replayEdits...), harnessEdits...))
	fmt.Fprintf(h, "cargo: [dependencies.%s] version \"=<locked>\"; [patch.crates-io] %s = { path = \"patches/%s\" }", ReplayCrate, ReplayCrate, ReplayCrate)
	return hex.EncodeToString(h.Sum(nil))
}

// hashEdits writes every field of each edit to h.
func hashEdits(h io.Writer, edits []edit) {
	for _, e := range edits {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%s\x00%s\x00", e.file, e.within, e.after, e.anchor, e.count, e.mode, e.code)
	}
}

// applied is one file the extension changed: its diff is the reviewable patch.
type applied struct {
	file          string
	before, after string
}

// applyEdits edits files under root for purpose ("timing extension"), refusing any anchor
// whose count differs; what names the package in errors.
func applyEdits(root, purpose, what string, edits []edit) ([]applied, error) {
	byFile := map[string]*applied{}
	var order []string
	for _, e := range edits {
		a := byFile[e.file]
		if a == nil {
			b, err := os.ReadFile(filepath.Join(root, e.file))
			if err != nil {
				return nil, fmt.Errorf("%s: %s has no %s (%w): this version's code does not have the expected shape, and kvparity never patches a guess", purpose, what, e.file, err)
			}
			a = &applied{file: e.file, before: string(b), after: string(b)}
			byFile[e.file] = a
			order = append(order, e.file)
		}
		out, err := e.apply(a.after)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w: this version's code does not have the expected shape, and kvparity never patches a guess", purpose, what, e.file, err)
		}
		a.after = out
	}
	var res []applied
	for _, f := range order {
		a := byFile[f]
		if err := os.WriteFile(filepath.Join(root, f), []byte(a.after), 0o644); err != nil {
			return nil, err
		}
		res = append(res, *a)
	}
	return res, nil
}

// apply performs one edit on src.
func (e edit) apply(src string) (string, error) {
	if e.mode == "append" {
		return strings.TrimRight(src, "\n") + "\n" + e.code, nil
	}
	lo, hi := 0, len(src)
	if e.within != "" {
		i := strings.Index(src, e.within)
		if i < 0 || strings.Count(src, e.within) != 1 {
			return "", fmt.Errorf("expected exactly one function %q, found %d", strings.TrimSuffix(e.within, "("), strings.Count(src, e.within))
		}
		lo, hi = i, functionEnd(src, i)
	}
	where := "the file"
	if e.within != "" {
		where = strings.TrimSuffix(e.within, "(")
	}
	if e.after != "" {
		j := strings.Index(src[lo:hi], e.after)
		if j < 0 || strings.Count(src[lo:hi], e.after) != 1 {
			return "", fmt.Errorf("expected exactly one `%s` in %s, found %d", e.after, where, strings.Count(src[lo:hi], e.after))
		}
		lo += j + len(e.after)
	}
	body := src[lo:hi]
	if e.count == 0 {
		i := strings.Index(body, e.anchor)
		if i < 0 {
			return "", fmt.Errorf("expected `%s` after `%s` in %s", e.anchor, e.after, where)
		}
		hi = lo + i + len(e.anchor)
		body = src[lo:hi]
	} else if n := strings.Count(body, e.anchor); n != e.count {
		return "", fmt.Errorf("expected %d× `%s` in %s, found %d", e.count, e.anchor, where, n)
	}
	var b strings.Builder
	b.WriteString(src[:lo])
	rest := body
	for {
		i := strings.Index(rest, e.anchor)
		if i < 0 {
			break
		}
		ind := indentAt(rest, i)
		code := strings.ReplaceAll(e.code, "\n", "\n"+ind)
		switch e.mode {
		case "before":
			b.WriteString(rest[:i] + code + "\n" + ind + e.anchor)
		case "after":
			b.WriteString(rest[:i] + e.anchor + "\n" + ind + code)
		case "replace":
			b.WriteString(rest[:i] + code)
		}
		rest = rest[i+len(e.anchor):]
	}
	b.WriteString(rest)
	b.WriteString(src[hi:])
	return b.String(), nil
}

// functionEnd is where the function starting at i ends: the next item at the same or a lower
// indentation (a line starting with "fn ", "pub", "#[", "}" or "impl" at most as indented).
func functionEnd(src string, i int) int {
	ind := len(indentAt(src, i))
	lineEnd := strings.IndexByte(src[i:], '\n')
	if lineEnd < 0 {
		return len(src)
	}
	pos := i + lineEnd + 1
	for pos < len(src) {
		next := strings.IndexByte(src[pos:], '\n')
		line := src[pos:]
		if next >= 0 {
			line = src[pos : pos+next]
		}
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(line)-len(trimmed) <= ind && !strings.HasPrefix(trimmed, ")") && !strings.HasPrefix(trimmed, "//") &&
			(strings.HasPrefix(trimmed, "}") || strings.HasPrefix(trimmed, "fn ") || strings.HasPrefix(trimmed, "pub") ||
				strings.HasPrefix(trimmed, "#[") || strings.HasPrefix(trimmed, "impl")) {
			if strings.HasPrefix(trimmed, "}") && len(line)-len(trimmed) == ind {
				return pos + len(line) // the function's own closing brace
			}
			return pos
		}
		if next < 0 {
			break
		}
		pos += next + 1
	}
	return len(src)
}

// indentAt is the whitespace that starts the line holding src[i].
func indentAt(src string, i int) string {
	start := strings.LastIndexByte(src[:i], '\n') + 1
	j := start
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return src[start:j]
}

// unifiedPatch renders the applied edits as one reviewable unified diff (line mode of go-diff,
// three lines of context).
func unifiedPatch(prefix string, files []applied) string {
	dmp := diffmatchpatch.New()
	var b strings.Builder
	for _, f := range files {
		ra, rb, lines := dmp.DiffLinesToRunes(f.before, f.after)
		diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
		type line struct {
			op   byte
			text string
		}
		var all []line
		for _, d := range diffs {
			op := byte(' ')
			switch d.Type {
			case diffmatchpatch.DiffDelete:
				op = '-'
			case diffmatchpatch.DiffInsert:
				op = '+'
			}
			for _, l := range strings.SplitAfter(d.Text, "\n") {
				if l != "" {
					all = append(all, line{op, strings.TrimSuffix(l, "\n")})
				}
			}
		}
		name := f.file
		if prefix != "" {
			name = prefix + "/" + f.file
		}
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
		const ctx = 3
		for i := 0; i < len(all); {
			if all[i].op == ' ' {
				i++
				continue
			}
			start := max(0, i-ctx)
			end := i
			for j := i; j < len(all); j++ { // extend the hunk while changes are within 2*ctx
				if all[j].op != ' ' {
					end = j
				} else if j-end > 2*ctx {
					break
				}
			}
			end = min(len(all), end+ctx+1)
			oldStart, newStart := 1, 1
			for _, l := range all[:start] {
				if l.op != '+' {
					oldStart++
				}
				if l.op != '-' {
					newStart++
				}
			}
			oldN, newN := 0, 0
			for _, l := range all[start:end] {
				if l.op != '+' {
					oldN++
				}
				if l.op != '-' {
					newN++
				}
			}
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
			for _, l := range all[start:end] {
				b.WriteString(string(l.op) + l.text + "\n")
			}
			i = end
		}
	}
	return b.String()
}
