package ui

import (
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
)

// maxBatch bounds how many engine events one message carries, so a flood (a journal being
// replayed on resume) still lets key presses in between batches.
const maxBatch = 1024

// eventsMsg carries the engine events that were waiting on the channel: coalescing them into
// one message means one Update and at most one frame for a burst, not one per event.
type eventsMsg struct {
	events []engine.Event
	closed bool // the channel was closed after these events
}

// waitForEvents is the one re-armed command that pumps the engine: it blocks for the first
// event, then drains whatever else is already waiting. Update re-arms it after each batch.
func waitForEvents(ch <-chan engine.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsMsg{closed: true}
		}
		batch := []engine.Event{ev}
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{events: batch, closed: true}
				}
				batch = append(batch, ev)
			default:
				return eventsMsg{events: batch}
			}
		}
		return eventsMsg{events: batch}
	}
}
