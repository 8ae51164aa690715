package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	tea "charm.land/bubbletea/v2"
)

// errViewQuit is the cause work is stopped with when its standalone view is quit before the end.
var errViewQuit = errors.New("the view was quit")

// underView runs work beside a standalone view (the matrix and bisect views): work publishes
// to the view's feed; quitting the view cancels work's context with errViewQuit and waits for
// it to return. stopped says work had not ended when the view closed.
func underView(ctx context.Context, m tea.Model, command string, stderr io.Writer, work func(context.Context)) (stopped bool) {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() { defer close(done); work(wctx) }()
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		fmt.Fprintf(stderr, "kvparity %s: %v\n", command, err)
	}
	select {
	case <-done:
		return false
	default:
	}
	cancel(errViewQuit)
	<-done
	return true
}

// openWorkbench opens a campaign's workbench (kvparity open DIR) in place of a standalone view,
// which comes back when it is quit; a failure comes back as note's message.
func openWorkbench(exe, dir string, note func(string) tea.Msg) tea.Cmd {
	return tea.ExecProcess(exec.Command(exe, "open", dir), func(err error) tea.Msg {
		if err != nil {
			return note(fmt.Sprintf("kvparity open %s: %v", dir, err))
		}
		return nil
	})
}
