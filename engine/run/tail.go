package run

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"kvparity/report"
)

// maxLogLinesPerPoll bounds the stderr lines one poll hands the Observer, so a chatty replay
// cannot flood the workbench; every line is still in runs/<id>/stderr.
const maxLogLinesPerPoll = 200

// A Tailer follows a running replay's stderr file and progress side channel, and tells its
// Observer what they say.
type Tailer struct {
	run      string
	obs      Observer
	stderr   string
	progress string // "" when the binary gives no side channel
	start    time.Time

	errOff, progOff int64
	errPart         []byte // an incomplete last stderr line
	progPart        []byte
	lastElapsed     time.Time
	pressure        map[int]report.PressureRecord // by ordinal, for readmissions announced later
}

// NewTailer follows the replay run, whose stderr is the file stderr and whose side channel is
// progressFile ("" when the binary gives none), started at start.
func NewTailer(run string, obs Observer, stderr, progressFile string, start time.Time) *Tailer {
	return &Tailer{run: run, obs: obs, stderr: stderr, progress: progressFile, start: start}
}

// A progressLine is one line of the embedded engine's progress file.
type progressLine struct {
	VirtualTimeMs float64 `json:"virtual_time_ms"`
	Completed     int     `json:"completed"`
	Total         int     `json:"total"`

	// Pressure is a pressure record when it happens; Readmitted its readmission later.
	Pressure   *livePressure `json:"pressure"`
	Readmitted *struct {
		Ordinal int     `json:"ordinal"`
		AtMs    float64 `json:"at_ms"`
	} `json:"readmitted"`
}

// livePressure is a pressure record as the embedded engine announces it on the side channel.
type livePressure struct {
	Ordinal       int     `json:"ordinal"`
	AtMs          float64 `json:"at_ms"`
	Pool          string  `json:"pool"`
	WorkerID      int     `json:"worker_id"`
	DPRank        int     `json:"dp_rank"`
	Kind          string  `json:"kind"`
	RequestUUID   string  `json:"request_uuid"`
	RunningBefore int     `json:"running_before"`
	ActiveBlocks  int     `json:"active_blocks"`
}

func (t *Tailer) loop(done <-chan struct{}, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			t.Poll(true)
			return
		case <-tick.C:
			t.Poll(false)
		}
	}
}

// Poll hands the Observer what the replay wrote since the last poll; final also hands it an
// unterminated last line (the replay has ended).
func (t *Tailer) Poll(final bool) {
	if t.obs == nil {
		return
	}
	if lines := t.readLines(t.stderr, &t.errOff, &t.errPart, final); len(lines) > 0 {
		skipped := 0
		if len(lines) > maxLogLinesPerPoll {
			skipped = len(lines) - maxLogLinesPerPoll
			lines = lines[:maxLogLinesPerPoll]
		}
		for _, l := range lines {
			t.obs.Log(t.run, l)
		}
		if skipped > 0 {
			t.obs.Log(t.run, "… "+strconv.Itoa(skipped)+" more lines in "+t.stderr)
		}
	}
	elapsed := time.Since(t.start)
	if t.progress != "" {
		lines := t.readLines(t.progress, &t.progOff, &t.progPart, false)
		var last *progressLine
		for _, l := range lines {
			var p progressLine
			if json.Unmarshal([]byte(l), &p) != nil {
				continue
			}
			switch {
			case p.Pressure != nil:
				t.pressureLive(p.Pressure)
			case p.Readmitted != nil:
				if r, ok := t.pressure[p.Readmitted.Ordinal]; ok && !r.Readmitted {
					r.Readmitted, r.ReadmittedAt = true, p.Readmitted.AtMs
					t.pressure[r.Ordinal] = r
					t.obs.Pressure(t.run, r)
				}
			default:
				last = &p
			}
		}
		if last != nil {
			t.obs.Progress(t.run, Progress{VirtualTimeMs: last.VirtualTimeMs, Completed: last.Completed, Total: last.Total, Elapsed: elapsed})
		}
		return
	}
	// No side channel: elapsed time only, about once a second.
	if now := time.Now(); !final && now.Sub(t.lastElapsed) >= time.Second {
		t.lastElapsed = now
		t.obs.Progress(t.run, Progress{Elapsed: elapsed})
	}
}

// pressureLive publishes a pressure record the moment the replay reports it; the run's
// evidence carries the same record (by ordinal) at the end.
func (t *Tailer) pressureLive(p *livePressure) {
	r := report.PressureRecord{Ordinal: p.Ordinal, AtMs: p.AtMs, Pool: p.Pool, WorkerID: p.WorkerID, DPRank: p.DPRank,
		Kind: p.Kind, RequestUUID: p.RequestUUID, RunningBefore: p.RunningBefore, ActiveBlocks: p.ActiveBlocks}
	if t.pressure == nil {
		t.pressure = map[int]report.PressureRecord{}
	}
	t.pressure[r.Ordinal] = r
	t.obs.Pressure(t.run, r)
}

// readLines returns the complete lines appended to path since the last call. With final set,
// an unterminated last line is returned too.
func (t *Tailer) readLines(path string, off *int64, part *[]byte, final bool) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(*off, io.SeekStart); err != nil {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	*off += int64(len(data))
	buf := append(*part, data...)
	cut := bytes.LastIndexByte(buf, '\n')
	var whole []byte
	if cut >= 0 {
		whole, *part = buf[:cut], append([]byte(nil), buf[cut+1:]...)
	} else {
		*part = buf
	}
	lines := splitLines(whole)
	if final && len(*part) > 0 {
		lines = append(lines, string(*part))
		*part = nil
	}
	return lines
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}
