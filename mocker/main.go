package mocker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kvparity/report"
)

// Main runs `kvparity replay TRACE [flags]` and returns the exit status: 0 on success, 2 for
// a command-line error (clap's `error: ...`), 1 for any other failure (`Error: ...`).
func Main(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	for _, a := range args {
		if a == "-h" || a == "--help" {
			writeHelp(stdout)
			return 0
		}
	}
	cfg, skip, err := parseArgs(args)
	if skip {
		fmt.Fprintln(stderr, "offline_replay_bench: skipping no-arg harness invocation")
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n\nFor more information, try '--help'.\n", err)
		return 2
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if err := replay(&cfg, start, stdout); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

func writeHelp(w io.Writer) {
	fmt.Fprintln(w, "Replay a Mooncake trace with the embedded reference engine (offline_replay_bench flags).")
	fmt.Fprintln(w, "\nUsage: kvparity replay [OPTIONS] <TRACE_FILE>\n\nOptions:")
	for _, f := range flagTable() {
		extra := ""
		if f.values != nil {
			extra = fmt.Sprintf(" [possible values: %s]", strings.Join(f.values, ", "))
		}
		fmt.Fprintf(w, "      %s <%s>%s\n", f.name, f.meta, extra)
	}
	fmt.Fprintln(w, "\nkvparity extensions: --variant NAME, --progress-file PATH, --scale-event AT_MS:WORKERS (repeatable).")
}

// replay is the harness control flow (Dynamo's lib/bench/offline_replay_bench.rs main) with the
// protocol's timing boundary.
func replay(cfg *config, start time.Time, stdout io.Writer) error {
	v, _ := parseVariant(cfg.Variant)
	if cfg.RouterPolicyConfig != "" {
		if _, err := os.Stat(cfg.RouterPolicyConfig); err != nil {
			return fmt.Errorf("router policy config %q: %v", cfg.RouterPolicyConfig, err)
		}
		return fmt.Errorf("router policy config %q: builtin-catalog worker selection is not implemented by the embedded engine; use a Dynamo build for policy rows", cfg.RouterPolicyConfig)
	}
	canonical := cfg.CanonicalJSONL != ""

	loadStart := time.Now()
	traceBytes, err := os.ReadFile(cfg.TracePath)
	if err != nil {
		return fmt.Errorf("reading trace %s: %w", cfg.TracePath, unwrapPath(err))
	}
	var digest string
	if canonical {
		digest = workloadDigest(traceBytes)
	}
	rows, err := report.ReadMooncake(bytes.NewReader(traceBytes), cfg.TracePath)
	if err != nil {
		return err
	}
	wl, err := buildWorkload(rows, cfg.TraceBlockSize, cfg.BlockSize, cfg.ArrivalSpeedupRatio)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.TracePath, err)
	}
	traceLoadMs := msSince(loadStart)
	loaded := time.Now()
	if canonical {
		if again, err := os.ReadFile(cfg.TracePath); err != nil || !bytes.Equal(again, traceBytes) {
			return errors.New("trace input changed while it was being loaded")
		}
	}

	var timings, canon, progress *os.File
	open := func(path string, flag int) (*os.File, error) {
		f, err := os.OpenFile(path, flag, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", path, unwrapPath(err))
		}
		return f, nil
	}
	if cfg.TimingsJSONL != "" {
		if timings, err = open(cfg.TimingsJSONL, os.O_CREATE|os.O_TRUNC|os.O_WRONLY); err != nil {
			return err
		}
		defer timings.Close()
	}
	if canonical {
		if canon, err = open(cfg.CanonicalJSONL, os.O_CREATE|os.O_TRUNC|os.O_WRONLY); err != nil {
			return err
		}
		defer canon.Close()
	}
	if cfg.ProgressFile != "" {
		if progress, err = open(cfg.ProgressFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY); err != nil {
			return err
		}
		defer progress.Close()
	}
	total := len(wl.requests)
	var live *evidence // the first iteration's pressure records go to the side channel live
	writeProgress := func(vt float64, completed int) {
		var b []byte
		if live != nil {
			b, live.liveOut = live.liveOut, nil
		}
		b = append(b, `{"virtual_time_ms":`...)
		b = appendRustFloat(b, vt)
		b = append(b, `,"completed":`...)
		b = strconv.AppendInt(b, int64(completed), 10)
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(total), 10)
		b = append(b, "}\n"...)
		progress.Write(b)
	}

	var first []byte
	var last *replayReport
	for it := 0; it < cfg.Iterations; it++ {
		callStart := time.Now()
		s := newSim(cfg, v, wl)
		if progress != nil {
			s.progress = writeProgress
			if it == 0 {
				live, s.ev.live = s.ev, true
			} else {
				live = nil
			}
		}
		runtime.LockOSThread()
		cpu0 := threadCPUms()
		execStart := time.Now()
		// setup: process start through workload construction, plus this iteration's engine
		// preparation (earlier iterations are not setup of this one)
		setupMs := msBetween(start, loaded) + msBetween(callStart, execStart)
		timedRegion(s)
		execMs := msSince(execStart)
		cpu1 := threadCPUms()
		runtime.UnlockOSThread()
		rep := s.finalize()
		rep.wallMs = msSince(callStart)
		callMs := rep.wallMs
		if progress != nil {
			writeProgress(s.now, s.col.completed)
		}
		if canonical {
			line := rep.canonicalLine(digest)
			if it == 0 {
				first = line
			} else if !bytes.Equal(line, first) {
				return fmt.Errorf("canonical replay output changed between iterations 0 and %d", it)
			}
			if _, err := canon.Write(line); err != nil {
				return fmt.Errorf("writing %s: %w", cfg.CanonicalJSONL, err)
			}
		}
		if timings != nil {
			o := jobj()
			o.set("iteration", jint(it))
			o.set("wall_time_ms", jfloat(rep.wallMs))
			o.set("replay_call_ms", jfloat(callMs))
			if cpu0 >= 0 && cpu1 >= 0 {
				o.set("replay_cpu_ms", jfloat(cpu1-cpu0))
			} else {
				o.set("replay_cpu_ms", jnull())
			}
			o.set("trace_load_ms", jfloat(traceLoadMs))
			o.set("peak_rss_kib", peakRSS())
			o.set("serving_mode", jstr(cfg.ServingMode))
			o.set("router_mode", jstr(cfg.RouterMode))
			o.set("engine_type", jstr(cfg.EngineType))
			o.set("native_router_event_visibility", jstr("pass-end"))
			o.set("replay_bench", jbool(true))
			o.set("replay_execution_ms", jfloat(execMs))
			o.set("setup_ms", jfloat(setupMs))
			o.set("end_to_end_ms", jfloat(msSince(start)))
			work, err := rep.workFingerprint()
			if err != nil {
				return fmt.Errorf("work fingerprint: %w", err)
			}
			o.set("work_fingerprint", work)
			if cfg.Variant != "" {
				o.set("kvparity_variant", jstr(cfg.Variant))
			}
			if v.slowdownPct > 0 { // the slowdown's own share, so its calibration can be checked per run
				o.set("kvparity_slowdown_ms", jfloat(float64(s.slowBurnt)/1e6))
			}
			line := append(appendCompact(nil, o.val()), '\n')
			if _, err := timings.Write(line); err != nil {
				return fmt.Errorf("writing %s: %w", cfg.TimingsJSONL, err)
			}
		}
		last = rep
	}
	if canonical {
		if again, err := os.ReadFile(cfg.TracePath); err != nil || !bytes.Equal(again, traceBytes) {
			return errors.New("trace input changed during replay")
		}
	}
	if timings != nil {
		if err := timings.Sync(); err != nil {
			return fmt.Errorf("writing %s: %w", cfg.TimingsJSONL, err)
		}
	}
	if cfg.ReportJSON != "" {
		b := appendPretty(nil, last.summary(true), 0)
		if err := os.WriteFile(cfg.ReportJSON, b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", cfg.ReportJSON, unwrapPath(err))
		}
		fmt.Fprintf(stdout, "Saved report to %s\n", cfg.ReportJSON)
	}
	printReport(stdout, last)
	return nil
}

// printReport prints the report's Display lines, floats with {:.6}.
func printReport(w io.Writer, rep *replayReport) {
	durS := rep.durationMs / 1000
	if durS < 1e-9 {
		durS = 1e-9
	}
	wallS := rep.wallMs / 1000
	per := func(n int) float64 {
		if wallS <= 0 {
			return 0
		}
		return float64(n) / wallS
	}
	ratio := func(n int) float64 {
		if rep.inTok == 0 {
			return 0
		}
		return float64(n) / float64(rep.inTok)
	}
	fmt.Fprintln(w, "Offline replay report")
	fmt.Fprintf(w, "  completed_requests: %d\n", rep.completed)
	fmt.Fprintf(w, "  request_throughput_rps: %.6f\n", float64(rep.completed)/durS)
	fmt.Fprintf(w, "  output_throughput_tok_s: %.6f\n", float64(rep.outTok)/durS)
	fmt.Fprintf(w, "  total_input_tokens: %d\n", rep.inTok)
	fmt.Fprintf(w, "  total_output_tokens: %d\n", rep.outTok)
	fmt.Fprintf(w, "  processed_tokens_per_s: %.6f\n", per(rep.inTok+rep.outTok))
	fmt.Fprintf(w, "  processed_output_tokens_per_s: %.6f\n", per(rep.outTok))
	fmt.Fprintf(w, "  mean_ttft_ms: %.6f\n", rep.ttft.mean)
	fmt.Fprintf(w, "  mean_e2e_latency_ms: %.6f\n", rep.e2e.mean)
	fmt.Fprintf(w, "  prefix_cache_reused_ratio: %.6f\n", ratio(rep.reused))
	fmt.Fprintf(w, "  first_admission_prefix_cache_reused_ratio: %.6f\n", ratio(rep.firstReused))
	fmt.Fprintf(w, "  wall_time_ms: %.6f\n", rep.wallMs)
}

func msSince(t time.Time) float64      { return float64(time.Since(t).Nanoseconds()) / 1e6 }
func msBetween(a, b time.Time) float64 { return float64(b.Sub(a).Nanoseconds()) / 1e6 }

// threadCPUms is the calling thread's CPU time (RUSAGE_THREAD), −1 when unavailable.
func threadCPUms() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func peakRSS() jv {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return jnull()
	}
	return jint(int(ru.Maxrss))
}

// unwrapPath drops the *PathError wrapper whose text repeats the path we already name.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// timedRegion is the replay loop, the region replay_execution_ms measures, as a function of its
// own that is never inlined, bracketed by callgrind's CALLGRIND_TOGGLE_COLLECT client request:
// kvparity's instruction instrument (callgrind --collect-atstart=no) counts exactly the loop on
// this thread, as it counts the timing extension's bench_timing::timed_region in a Dynamo
// build. Outside valgrind the two requests are a few no-op instructions. (A --toggle-collect by
// name loses the loop when Go moves the goroutine's stack.)
//
//go:noinline
func timedRegion(s *sim) {
	callgrindToggleCollect()
	s.run()
	callgrindToggleCollect()
}
