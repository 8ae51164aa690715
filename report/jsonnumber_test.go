package report

import (
	"strings"
	"testing"
)

func TestNumberEndFollowsTheGrammar(t *testing.T) {
	for _, c := range []struct {
		in      string
		end     int
		problem string // "" when the literal is valid
	}{
		{"0,", 1, ""},
		{"-12.50e+3]", 9, ""},
		{"4.0}", 3, ""},
		{"01", 0, "leading zero"},
		{"-", 0, "invalid number"},
		{"1.", 0, "no digits after '.'"},
		{"2e+", 0, "no digits in exponent"},
	} {
		end, err := NumberEnd([]byte(c.in), 0)
		switch {
		case c.problem == "" && (err != nil || end != c.end):
			t.Errorf("%q: end %d err %v, want end %d", c.in, end, err, c.end)
		case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
			t.Errorf("%q: err %v, want one naming %q", c.in, err, c.problem)
		}
	}
}
