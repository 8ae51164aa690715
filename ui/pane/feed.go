package pane

import (
	"sync"

	tea "charm.land/bubbletea/v2"
)

// A Feed carries a producer goroutine's snapshots S to a Bubble Tea program, then its end E:
// the matrix and bisect views read what matrix.Run and bisect.Run publish. Publish never blocks
// the producer: a snapshot the program has not read yet is replaced by the newer one, since
// each snapshot is complete.
type Feed[S, E any] struct {
	snaps chan S
	done  chan E
}

// NewFeed makes an empty feed.
func NewFeed[S, E any]() *Feed[S, E] {
	return &Feed[S, E]{snaps: make(chan S, 1), done: make(chan E, 1)}
}

// Publish offers the newest snapshot, dropping an unread older one.
func (f *Feed[S, E]) Publish(s S) {
	for {
		select {
		case f.snaps <- s:
			return
		default:
		}
		select {
		case <-f.snaps: // drop the unread, older snapshot
		default:
		}
	}
}

// Finish hands the producer's end over; call it once, after the producer returned.
func (f *Feed[S, E]) Finish(e E) { f.done <- e }

// Next blocks until the next snapshot (ended false) or the end (ended true). A snapshot
// published just before the end is delivered first; after the end, Next must not be called.
func (f *Feed[S, E]) Next() (s S, e E, ended bool) {
	select {
	case s = <-f.snaps:
		return s, e, false
	case e = <-f.done:
		select {
		case s = <-f.snaps:
			f.done <- e
			return s, e, false
		default:
		}
		return s, e, true
	}
}

// Wait is the command a view re-arms after each snapshot: it delivers the next snapshot as
// snap makes it a message, or the end as end does (after the last snapshot published before
// it); after the end the view stops re-arming it.
func (f *Feed[S, E]) Wait(snap func(S) tea.Msg, end func(E) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		s, e, ended := f.Next()
		if ended {
			return end(e)
		}
		return snap(s)
	}
}

// A Fold is a Feed whose producer publishes steps P rather than whole snapshots: each step is
// folded into the state (apply) and a copy of the state (clone) is offered as the newest
// snapshot. Fold may be called from several goroutines (the bisect's build and its campaign's
// event pump; the qualification's stage and its campaign's events).
type Fold[S, P, E any] struct {
	*Feed[S, E]
	mu    sync.Mutex
	state S
	apply func(*S, P)
	clone func(S) S
}

// NewFold makes an empty fold feed.
func NewFold[S, P, E any](apply func(*S, P), clone func(S) S) *Fold[S, P, E] {
	return &Fold[S, P, E]{Feed: NewFeed[S, E](), apply: apply, clone: clone}
}

// Fold folds one step and offers the new snapshot.
func (f *Fold[S, P, E]) Fold(p P) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apply(&f.state, p)
	f.Publish(f.clone(f.state))
}
