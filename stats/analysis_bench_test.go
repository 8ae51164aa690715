package stats

import "testing"

// BenchmarkAnalyze times the whole analysis of one 60-pair series: bounds, the battery and the
// two 10000-resample bootstraps (the final step of a perf stage).
func BenchmarkAnalyze(b *testing.B) {
	r := lognormalRatios(1, 60, 1.02, 0.02)
	sched, _ := BalancedSchedule(20261129, 60)
	cfg := DefaultConfig(20261129)
	for b.Loop() {
		if _, err := Analyze(r, sched.Pairs, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunBattery times the running diagnostics published after every pair.
func BenchmarkRunBattery(b *testing.B) {
	d := LogRatios(lognormalRatios(1, 60, 1.02, 0.02))
	sched, _ := BalancedSchedule(20261129, 60)
	for b.Loop() {
		RunBattery(d, sched.Pairs, DefaultBattery)
	}
}
