package text

import (
	"regexp"
	"strconv"
	"strings"
)

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// StripColour removes the colour parameters of every SGR sequence in s and keeps the rest
// (bold, underline, reverse...). It is how a pane styled elsewhere honours NO_COLOR.
func StripColour(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	return sgr.ReplaceAllStringFunc(s, func(seq string) string {
		params := strings.Split(seq[2:len(seq)-1], ";")
		var keep []string
		for i := 0; i < len(params); i++ {
			n, err := strconv.Atoi(params[i])
			if err != nil {
				continue // a ":"-form colour or garbage: not an attribute we need
			}
			switch {
			case n == 38 || n == 48 || n == 58: // extended colour: 5;n or 2;r;g;b follows
				if i+1 < len(params) && params[i+1] == "5" {
					i += 2
				} else if i+1 < len(params) && params[i+1] == "2" {
					i += 4
				}
			case n >= 30 && n <= 37, n == 39, n >= 40 && n <= 47, n == 49, n == 59,
				n >= 90 && n <= 97, n >= 100 && n <= 107:
			default:
				keep = append(keep, params[i])
			}
		}
		if len(keep) == 0 {
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				return seq
			}
			return ""
		}
		return "\x1b[" + strings.Join(keep, ";") + "m"
	})
}
