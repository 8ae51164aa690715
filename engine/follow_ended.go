package engine

import "kvparity/engine/run"

// What a follower saw when the kvparity it followed ended. A writer killed outright (SIGKILL,
// an OOM kill) records no end for its stage or its runs, and its replays' own children can
// outlive it in their process groups. The follower may stop none of them (it is read-only; the
// next writer's resume kills them, KillStrays), so it reports what it found, as that resume
// would find it.

// An UnfinishedRun is a run the followed writer started and never recorded the end of: the
// process group its run_start records, and the pids of that group still running in the
// campaign when the writer was seen gone (none: nothing of it is left).
type UnfinishedRun struct {
	Run     RunID
	PGID    int
	Running []int
}

// unfinishedRuns are the runs holder started (their run_start names it as owner) that have no
// end record, each checked in /proc for what of it still runs. Open runs of earlier writers
// are not holder's: the resume that started holder dealt with them.
func (f *follower) unfinishedRuns(h *History, holder run.Holder) []UnfinishedRun {
	c := f.c
	var out []UnfinishedRun
	for _, r := range h.openRuns() {
		if o := r.Owner; o == nil || o.PID != holder.PID || o.Start != holder.Start || o.Host != holder.Host {
			continue
		}
		s := strays([]Record{r})[0]
		out = append(out, UnfinishedRun{Run: r.Run, PGID: s.Group(), Running: s.Running(c.dir)})
	}
	return out
}
