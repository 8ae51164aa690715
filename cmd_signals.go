package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"kvparity/verdict"
)

// The signals that interrupt kvparity: Ctrl-C, kill, and SIGHUP (a closed terminal, a killed
// tmux session). Each stops the running stage the same way, its replays killed by process
// group and the interruption recorded in the journal, so no replay outlives its campaign and
// the resumed campaign reruns only what was cut short.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// A signalStop is the cause of a context cancelled by a signal.
type signalStop struct{ sig syscall.Signal }

func (s signalStop) Error() string { return s.sig.String() + " signal received" }

// interruptContext is cancelled by the first interrupt signal, with a signalStop as its cause.
func interruptContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, interruptSignals...)
	go func() {
		select {
		case s := <-ch:
			cancel(signalStop{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// interruptedExit is verdict.ExitInterrupted for the signal in ctx's cause, ok false when no
// signal ended it.
func interruptedExit(ctx context.Context) (int, bool) {
	var s signalStop
	if errors.As(context.Cause(ctx), &s) {
		return verdict.ExitInterrupted(s.sig), true
	}
	return 0, false
}
