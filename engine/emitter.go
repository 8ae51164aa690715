package engine

import "sync"

// An emitter is the campaign's single event channel with an unbounded queue in front of it:
// engine goroutines never block on a slow reader, and no event is dropped. Close drains what
// is queued and then closes the channel.
type emitter struct {
	out chan Event

	mu     sync.Mutex
	queue  []Event
	wake   chan struct{}
	closed bool
	done   chan struct{}
}

func newEmitter() *emitter {
	e := &emitter{out: make(chan Event, 64), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go e.pump()
	return e
}

// Emit queues an event; after close it is a no-op.
func (e *emitter) Emit(ev Event) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.queue = append(e.queue, ev)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *emitter) pump() {
	defer close(e.done)
	defer close(e.out)
	for {
		e.mu.Lock()
		batch := e.queue
		e.queue = nil
		closed := e.closed
		e.mu.Unlock()
		for _, ev := range batch {
			e.out <- ev
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-e.wake
	}
}

// close stops accepting events; the channel closes once the reader has taken the queued ones.
func (e *emitter) close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}
