package build

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// The scale-events variant: the harness extension that lets a published dynamo-bench drive
// stage 6's scale-to-zero fixture offline. The published harness has no scaling input
// (offline_replay_bench.rs struct Args) and its canonical entry point hands the replay core no
// scaling policy (dynamo-mocker 1.6.1 src/replay/offline/entrypoints.rs:496 passes None at
// :524), yet the replay core's scaling component (aisimulate-core src/replay/scaling.rs
// ReplayScalingPolicy, fired by ScalingTick inside the runtime's own event loop) runs under any
// capture options. The variant adds
//
//   - to the replay core: a per-thread schedule the harness hands over before a replay, taken by
//     Replayer::run_inner when the composition brings no policy of its own, and a policy that
//     sets the aggregated worker target at each scheduled virtual time, recording what it
//     applied;
//   - to the harness: --scale-event AT_MS:WORKERS (repeatable; the embedded engine's spelling),
//     the schedule handed over before each iteration, and the applied events written into the
//     canonical record's metadata as kvparity_scale_events.
//
// The canonical capture options are the harness's own (canonical determinism kept on), so a
// scaled run gives a canonical record. Without --scale-event nothing is handed over, the core
// takes no policy and the metadata gains nothing: a run's outputs are those of the plain build.
// Like the calibrated slowdown it is a variant, never the timing extension: its diff is kept
// apart (Info.VariantPatch) and its checksum enters the cache key only for the variant's builds.

// ScaleEventsVariant is the variant's name in a row (`variant = "scale-events"`).
const ScaleEventsVariant = "scale-events"

const benchScalingModule = `
/// kvparity scale-events variant (bench only): a fixed schedule of aggregated worker targets
/// the harness hands over (--scale-event AT_MS:WORKERS) before one replay, driven by the
/// runtime's own ScalingTick. Without a schedule nothing changes.
#[doc(hidden)]
pub mod bench_scaling {
    use crate::replay::scaling::{ReplayScalingDecision, ReplayScalingPolicy, ReplayScalingSnapshot};
    use std::cell::RefCell;

    /// One applied event: its virtual time, the target, and the non-draining workers before it.
    pub type Applied = (f64, usize, usize);

    thread_local! {
        static NEXT: RefCell<Option<Vec<(f64, usize)>>> = const { RefCell::new(None) };
        static APPLIED: RefCell<Option<Vec<Applied>>> = const { RefCell::new(None) };
    }

    /// Hands the next replay on this thread a schedule of (AT_MS, WORKERS), times non-decreasing.
    pub fn set(events: Vec<(f64, usize)>) {
        NEXT.with(|n| *n.borrow_mut() = Some(events));
        APPLIED.with(|a| *a.borrow_mut() = Some(Vec::new()));
    }

    /// The events the last scheduled replay on this thread applied (None: no schedule given).
    pub fn applied() -> Option<Vec<Applied>> {
        APPLIED.with(|a| a.borrow().clone())
    }

    /// The schedule's policy, taken once by the replay it was handed to.
    pub(crate) fn take() -> Option<Box<dyn ReplayScalingPolicy>> {
        let events = NEXT.with(|n| n.borrow_mut().take())?;
        Some(Box::new(Schedule { events, next: 0 }))
    }

    struct Schedule {
        events: Vec<(f64, usize)>,
        next: usize,
    }

    impl ReplayScalingPolicy for Schedule {
        fn initial_tick_ms(&mut self) -> anyhow::Result<f64> {
            Ok(self.events.first().map_or(f64::INFINITY, |e| e.0))
        }

        fn on_tick(&mut self, snapshot: ReplayScalingSnapshot) -> anyhow::Result<ReplayScalingDecision> {
            let mut target = None;
            while let Some(&(at_ms, workers)) = self.events.get(self.next) {
                if at_ms > snapshot.now_ms {
                    break;
                }
                target = Some(workers);
                self.next += 1;
            }
            if let Some(workers) = target {
                let before = snapshot.active_decode_ids.len() + snapshot.starting_decode_ids.len();
                APPLIED.with(|a| a.borrow_mut().get_or_insert_with(Vec::new).push((snapshot.now_ms, workers, before)));
            }
            Ok(ReplayScalingDecision {
                target_prefill: None,
                target_decode: target,
                next_tick_ms: self.events.get(self.next).map(|e| e.0),
            })
        }
    }
}
`

const harnessScaleFns = `
/// kvparity scale-events variant: the --scale-event schedule (AT_MS:WORKERS, virtual ms after
/// the arrival speedup; the embedded engine's spelling), handed to the replay core.
fn parse_kvparity_scale_events(args: &Args) -> Result<Vec<(f64, usize)>> {
    let mut events: Vec<(f64, usize)> = Vec::new();
    for (i, raw) in args.scale_event.iter().enumerate() {
        let (at, workers) = raw
            .split_once(':')
            .with_context(|| format!("--scale-event {}: expected AT_MS:WORKERS, got {raw:?}", i + 1))?;
        let at_ms = at
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .with_context(|| format!("--scale-event {}: AT_MS must be a finite non-negative number, got {at:?}", i + 1))?;
        let workers: usize = workers
            .parse()
            .with_context(|| format!("--scale-event {}: WORKERS must be a non-negative integer, got {workers:?}", i + 1))?;
        ensure!(workers <= args.num_workers, "--scale-event {}: {workers} workers exceeds --num-workers {}", i + 1, args.num_workers);
        ensure!(events.last().is_none_or(|last| last.0 <= at_ms), "--scale-event {}: times must be non-decreasing", i + 1);
        events.push((at_ms, workers));
    }
    ensure!(
        events.is_empty() || args.serving_mode == ServingModeArg::Aggregated,
        "--scale-event requires --serving-mode aggregated"
    );
    Ok(events)
}

/// The scale events the replay applied, in the canonical metadata when a schedule was given.
fn kvparity_scale_metadata(mut metadata: Value) -> Value {
    if let Some(applied) = aisimulate_core::replay::bench_scaling::applied() {
        metadata["kvparity_scale_events"] = applied
            .iter()
            .map(|(at_ms, workers, before)| json!({"at_ms": at_ms, "workers": workers, "workers_before": before}))
            .collect();
    }
    metadata
}
`

// scaleCoreEdits apply to the replay core crate (after the timing extension's).
var scaleCoreEdits = []edit{
	// After the composition's own policy is taken (the published entry point passes none).
	{file: "src/replay/replayer.rs", within: "fn run_inner(", after: ".take_scaling_policy()",
		anchor: "let belady_oracle = if engine_config.kv_eviction_policy == KvEvictionPolicy::Belady {", count: 1, mode: "before",
		code: "let scaling = scaling.or_else(bench_scaling::take);"},
	{file: "src/replay/replayer.rs", mode: "append", code: benchScalingModule},
	{file: "src/replay/mod.rs", anchor: "pub use replayer::{ReplayComposition, Replayer, RoundRobinComposition};", count: 1, mode: "after",
		code: "#[doc(hidden)]\npub use replayer::bench_scaling;"},
}

// scaleHarnessEdits apply to the bench harness (after the timing extension's).
var scaleHarnessEdits = []edit{
	{file: "offline_replay_bench.rs", within: "struct Args {", anchor: "/// Ignored -- passed by cargo bench", count: 1, mode: "before",
		code: "/// kvparity scale-events variant: set the number of aggregated workers at a virtual time\n" +
			"/// (AT_MS:WORKERS; repeatable, times non-decreasing; aggregated serving only)\n" +
			"#[arg(long = \"scale-event\", value_name = \"AT_MS:WORKERS\")]\nscale_event: Vec<String>,\n"},
	{file: "offline_replay_bench.rs", within: "fn main(", anchor: "let router_config = router_config(&args)?;", count: 1, mode: "after",
		code: "let kvparity_scale_events = parse_kvparity_scale_events(&args)?;"},
	{file: "offline_replay_bench.rs", within: "fn main(", anchor: "let report = match args.serving_mode {", count: 1, mode: "before",
		code: "if !kvparity_scale_events.is_empty() {\n    aisimulate_core::replay::bench_scaling::set(kvparity_scale_events.clone());\n}"},
	{file: "offline_replay_bench.rs", within: "fn canonical_report(", anchor: "let metadata = canonical_metadata(args, engine_args, workload_digest)?;", count: 1, mode: "after",
		code: "let metadata = kvparity_scale_metadata(metadata);"},
	{file: "offline_replay_bench.rs", mode: "append", code: harnessScaleFns},
}

// scaleEventsSHA256 identifies the variant's code: part of the cache key of its builds.
func scaleEventsSHA256() string {
	h := sha256.New()
	hashEdits(h, append(append([]edit{}, scaleCoreEdits...), scaleHarnessEdits...))
	return hex.EncodeToString(h.Sum(nil))
}

// applyScaleEvents builds the scale-events variant into the edited replay crate (core) and
// harness package (pkg), after the timing extension, and returns its own diff.
func applyScaleEvents(root, core, pkg string) (string, error) {
	rc, err := readReplayCore(filepath.Join(root, "Cargo.lock"))
	if err != nil {
		return "", err
	}
	what := ReplayCrate + " " + rc.version
	coreFiles, err := applyEdits(core, "scale-events variant", what, scaleCoreEdits)
	if err != nil {
		return "", err
	}
	harness, err := applyEdits(pkg, "scale-events variant", BenchPackage, scaleHarnessEdits)
	if err != nil {
		return "", err
	}
	label := ReplayCrate + "-" + rc.version
	if rc.source == "" {
		rel, _ := filepath.Rel(root, core)
		label = filepath.ToSlash(rel)
	}
	return unifiedPatch(label, coreFiles) + unifiedPatch(BenchPackage, harness), nil
}
