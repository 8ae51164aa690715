package ui

import (
	"fmt"
	"strings"

	"kvparity/engine"
)

// A follower's words for its writer's end. The follower stopped nothing and may stop nothing
// (it is read-only), so it says only what it saw: how the writer went, which of its runs have
// no end record, and whether their process groups still run, checked when the writer went.

// writerEndedNews is the status line's summary of a followed writer's end.
func writerEndedNews(ev engine.FollowedWriter) string {
	how := "its process is gone (its lock file still names it)"
	if ev.Released {
		how = "it released the campaign lock"
	}
	s := fmt.Sprintf("kvparity pid %d has stopped writing this campaign: %s", ev.Holder.PID, how)
	n := len(ev.Unfinished)
	if n == 0 {
		return s
	}
	running := 0
	for _, r := range ev.Unfinished {
		if len(r.Running) > 0 {
			running++
		}
	}
	have := "have"
	if n == 1 {
		have = "has"
	}
	s += fmt.Sprintf("; %s it started %s no end record", plural(n, "run"), have)
	if running == 0 {
		return s + ", and no process of theirs runs"
	}
	return s + fmt.Sprintf(", %d still running (seen in /proc; not stopped here): the next writer's resume stops them", running)
}

// unfinishedRunNote is the log's line for one run the writer left with no end record.
func unfinishedRunNote(r engine.UnfinishedRun) string {
	switch {
	case r.PGID <= 0:
		return fmt.Sprintf("%s has no end record and no recorded process group to check", r.Run)
	case len(r.Running) == 0:
		return fmt.Sprintf("%s has no end record; no process of its group %d runs", r.Run, r.PGID)
	}
	pids := make([]string, len(r.Running))
	for i, p := range r.Running {
		pids[i] = fmt.Sprint(p)
	}
	return fmt.Sprintf("%s has no end record; its process group %d still runs (pids %s): this workbench is read-only and stops nothing, the next writer's resume stops it",
		r.Run, r.PGID, strings.Join(pids, " "))
}

// followedStageStop words a stage end a follower saw: recorded by its writer, or left with no
// record by a writer that went.
func (m *Model) followedStageStop(ev engine.StageStopped) string {
	if ev.WriterGone {
		return fmt.Sprintf("%s stage has no end record: kvparity pid %d, which ran it, is gone", ev.Stage, m.followed)
	}
	return fmt.Sprintf("%s stage stopped by kvparity pid %d, which writes the campaign (its end record says: %s)", ev.Stage, m.followed, ev.Reason)
}

// plural is "1 run" or "n runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
