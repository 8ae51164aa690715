package diffpane

import (
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// settle runs a command tree as the program would and feeds the pane's own results back (a
// filter scan, a coverage count, a save), until nothing more comes; cursor blinks and other
// timers are left behind. Workbench-bound messages (StatusMsg, RecordsChangedMsg) are
// collected in out.
func settle(t *testing.T, p Model, cmd tea.Cmd) (Model, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	for _, msg := range collect(cmd) {
		switch msg.(type) {
		case filterDoneMsg, coverageMsg, exceptionsSavedMsg, diffLoadedMsg, OpenRequestedMsg:
			var next tea.Cmd
			p, next = p.Update(msg)
			var more []tea.Msg
			p, more = settle(t, p, next)
			out = append(out, more...)
		default:
			out = append(out, msg)
		}
	}
	return p, out
}

// collect runs a command (children of a batch concurrently) and gathers what they return
// within a short wait.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(5 * time.Second): // nothing the pane returns sleeps (its cursors do not blink)
		return nil
	}
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	}
	res := make([][]tea.Msg, len(batch))
	var wg sync.WaitGroup
	for i, c := range batch {
		wg.Add(1)
		go func() { defer wg.Done(); res[i] = collect(c) }()
	}
	wg.Wait()
	var out []tea.Msg
	for _, r := range res {
		out = append(out, r...)
	}
	return out
}

// typeSettled types text key by key, settling each key's command (an incremental filter or a
// live coverage count runs after every key).
func typeSettled(t *testing.T, p Model, s string) Model {
	t.Helper()
	for _, r := range s {
		var cmd tea.Cmd
		if r == ' ' {
			p, cmd = p.Update(keyMsg("space"))
		} else {
			p, cmd = p.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		p, _ = settle(t, p, cmd)
	}
	return p
}

// pressSettled presses keys, settling each one's command.
func pressSettled(t *testing.T, p Model, names ...string) (Model, []tea.Msg) {
	t.Helper()
	var all []tea.Msg
	for _, k := range names {
		var cmd tea.Cmd
		p, cmd = p.Update(keyMsg(k))
		var out []tea.Msg
		p, out = settle(t, p, cmd)
		all = append(all, out...)
	}
	return p, all
}
