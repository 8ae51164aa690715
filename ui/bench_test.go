package ui

import (
	"fmt"
	"sort"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
)

// benchModel is the workbench with a 5,000-request campaign loaded: four repetitions with
// 5,000 requests' worth of lifecycle counters, 400 pressure events each, 60 pairs plotted and
// a full log.
func benchModel(b *testing.B, w, h int) Model {
	f := newFake(testInfo(5000, 60))
	m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m = mm.(Model)
	evs := determinismScript(5000, 400)
	for i := 0; i < 3000; i++ {
		evs = append(evs, engine.LogLine{Run: "det/candidate-2", Line: fmt.Sprintf("INFO scheduler step %d: 16 running, 5500 blocks", i)})
	}
	mm, _ = m.Update(eventsMsg{events: evs})
	mm, _ = mm.Update(eventsMsg{events: perfScript(60)})
	m = mm.(Model)
	if len(m.press.Records("det/candidate-2")) != 400 {
		b.Fatal("campaign not loaded")
	}
	return m
}

// BenchmarkView measures one frame: composing it from every pane (what a paced tick does) and
// View returning it. The median per-frame time is reported as median-ms/frame; the target is
// at most 5 ms.
func BenchmarkView(b *testing.B) {
	for _, sz := range [][2]int{{100, 30}, {80, 24}, {200, 60}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := benchModel(b, sz[0], sz[1])
			samples := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				m.render()
				_ = m.View()
				samples = append(samples, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
			b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "median-ms/frame")
		})
	}
}
