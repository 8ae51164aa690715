package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// A calibrated slowdown is a stand-in candidate revision built from a published source, the
// Rust counterpart of the embedded engine's slowdown-PCT variant: the replay loop of both
// runtimes (aggregated and disaggregated) pays PCT percent of its own wall time in extra CPU
// work, spread over its steps, in one named function. It exists to check stage 7 on a real arm
// (the perf gate's detection and `kvparity investigate` naming the function); the outputs stay
// byte-identical, so equivalent semantic work holds. It is never the timing extension: its diff
// is kept apart (Info.VariantPatch) and never enters the determinism patch.

// slowdownFunction is the symbol the slowdown's work is paid in (a profile names it).
const slowdownFunction = "kvparity_calibrated_slowdown"

const slowdownModule = `
/// kvparity calibrated slowdown (a stand-in candidate revision, never a real change): the
/// replay loop pays PCT percent of its own wall time (its time minus the slowdown's) in extra
/// CPU work, in slices of at least 50 µs checked every 64 steps, all in one function so a
/// profile names it. The outputs are unchanged.
#[doc(hidden)]
pub(crate) mod bench_slowdown {
    use std::time::{Duration, Instant};

    const PCT: f64 = %d.0;

    pub(crate) struct Slowdown {
        start: Instant,
        burnt: Duration,
        steps: u64,
        sink: u64,
    }

    impl Slowdown {
        pub(crate) fn start() -> Self {
            Self { start: Instant::now(), burnt: Duration::ZERO, steps: 0, sink: 1 }
        }

        #[inline(always)]
        pub(crate) fn step(&mut self) {
            self.steps += 1;
            if self.steps %% 64 == 0 {
                self.kvparity_calibrated_slowdown(false);
            }
        }

        #[inline(never)]
        pub(crate) fn kvparity_calibrated_slowdown(&mut self, last: bool) {
            let own = self.start.elapsed().saturating_sub(self.burnt);
            let owed = own.mul_f64(PCT / 100.0).saturating_sub(self.burnt);
            if owed < Duration::from_micros(50) && !last {
                return;
            }
            let t0 = Instant::now();
            while t0.elapsed() < owed {
                for _ in 0..256 {
                    self.sink = (self.sink ^ (self.sink >> 29)).wrapping_mul(0xbf58476d1ce4e5b9).rotate_left(17);
                }
            }
            self.burnt += t0.elapsed();
            std::hint::black_box(self.sink);
        }
    }
}
`

// loopAnchor is the replay loop of both runtimes' run_to_completion.
const loopAnchor = "while let ReplayStepOutcome::Settled { .. } = self.step()? {}"

const loopWithSlowdown = "let mut kvparity_slowdown = crate::replay::replayer::bench_slowdown::Slowdown::start();\n" +
	"while let ReplayStepOutcome::Settled { .. } = self.step()? {\n    kvparity_slowdown.step();\n}\n" +
	"kvparity_slowdown.kvparity_calibrated_slowdown(true);"

// slowdownEdits apply to the replay core crate (after the timing extension's).
func slowdownEdits(pct int) []edit {
	return []edit{
		{file: "src/replay/agg.rs", within: "fn run_to_completion(", anchor: loopAnchor, count: 1, mode: "replace", code: loopWithSlowdown},
		{file: "src/replay/disagg.rs", within: "fn run_to_completion(", anchor: loopAnchor, count: 1, mode: "replace", code: loopWithSlowdown},
		{file: "src/replay/replayer.rs", mode: "append", code: fmt.Sprintf(slowdownModule, pct)},
	}
}

// slowdownSHA256 identifies a slowdown's code: part of the cache key (Variant.sha256).
func slowdownSHA256(pct int) string {
	h := sha256.New()
	hashEdits(h, slowdownEdits(pct))
	return hex.EncodeToString(h.Sum(nil))
}
