package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// press builds the key message Bubble Tea delivers for a key name ("g", "tab", "esc", "up").
func press(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// newTestModel builds a workbench over a fake at a window size, fixed clock.
func newTestModel(t testing.TB, f *fakeController, w, h int) Model {
	t.Helper()
	m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock})
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// update sends one message and returns the new root model.
func update(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	nm, _ := m.Update(msg)
	return nm.(Model)
}

// updateCmd sends one message and returns the model and the messages its command produced
// (commands that block, like the pump on an empty channel, are abandoned after a short wait).
func updateCmd(t testing.TB, m Model, msg tea.Msg) (Model, []tea.Msg) {
	t.Helper()
	nm, cmd := m.Update(msg)
	return nm.(Model), run(cmd)
}

// cmdWait is how long run waits for one command: a command still running then is taken for
// one that blocks until an event comes (the engine pump) and yields nothing.
var cmdWait = 300 * time.Millisecond

// run executes a command tree and collects the messages, skipping frame ticks.
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(cmdWait):
		return nil
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		// Children run concurrently, as in the program, so one blocked pump costs one wait.
		results := make([][]tea.Msg, len(msg))
		var wg sync.WaitGroup
		for i, c := range msg {
			wg.Add(1)
			go func() { defer wg.Done(); results[i] = run(c) }()
		}
		wg.Wait()
		var out []tea.Msg
		for _, r := range results {
			out = append(out, r...)
		}
		return out
	case frameMsg:
		return nil
	case nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

// feed delivers command results back to the model, as the program would.
func feed(t testing.TB, m Model, msgs []tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		m = update(t, m, msg)
	}
	return m
}

// screen renders the current state and strips ANSI styling.
func screen(m Model) string {
	m.render()
	return ansi.Strip(m.frame)
}

func hasCall(calls []string, want string) bool {
	for _, c := range calls {
		if c == want {
			return true
		}
	}
	return false
}

func mustContain(t testing.TB, s, want string) {
	t.Helper()
	if !strings.Contains(s, want) {
		t.Fatalf("screen lacks %q:\n%s", want, s)
	}
}

// logText is the log pane's kept lines.
func (m Model) logText() string {
	var b strings.Builder
	for i := 0; i < m.logp.Len(); i++ {
		b.WriteString(m.logp.LineText(i) + "\n")
	}
	return b.String()
}
