package logpane

import tea "charm.land/bubbletea/v2"

func keyPress(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

func keyPress2(name string) tea.KeyPressMsg {
	if name == "pgup" {
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	}
	return tea.KeyPressMsg{Code: tea.KeyPgDown}
}
