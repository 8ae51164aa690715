package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"kvparity/internal/atomicfile"
)

// uiStateFile is the workbench's own state in the campaign folder: the choices a reopened
// campaign restores (the diff pane's grouping). It is never evidence: the report ignores it.
const uiStateFile = "ui-state.json"

// uiState is what the file holds. Unknown keys are an error naming the file, like every
// campaign file kvparity reads.
type uiState struct {
	// DiffGrouping is "request" (by request/event) or "pattern" (by field pattern).
	DiffGrouping string `json:"diff_grouping"`
}

// loadUIState reads dir's ui-state.json; a missing file is the zero state.
func loadUIState(dir string) (uiState, error) {
	path := filepath.Join(dir, uiStateFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || dir == "" {
		return uiState{}, nil
	}
	if err != nil {
		return uiState{}, err
	}
	var s uiState
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return uiState{}, fmt.Errorf("%s: %w", path, err)
	}
	switch s.DiffGrouping {
	case "", "request", "pattern":
	default:
		return uiState{}, fmt.Errorf("%s: diff_grouping %q: want \"request\" or \"pattern\"", path, s.DiffGrouping)
	}
	return s, nil
}

// uiStateSavedMsg reports a save of the ui state (an error only: a saved choice is silent).
type uiStateSavedMsg struct{ err error }

// saveUIState writes the state into dir, crash-safe and never through a link out of it. The
// campaign folder must exist: nothing is created outside one.
func saveUIState(dir string, s uiState) tea.Cmd {
	return func() tea.Msg {
		path := filepath.Join(dir, uiStateFile)
		b, err := json.MarshalIndent(s, "", "  ")
		if err == nil {
			err = atomicfile.InsideNoLinks(dir, path)
		}
		if err == nil {
			err = atomicfile.Write(path, append(b, '\n'), 0o644)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", path, pe.Err) // the file, not the temporary one beside it
		}
		return uiStateSavedMsg{err: err}
	}
}
