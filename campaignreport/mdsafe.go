package campaignreport

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// summary.md and report.md are pasted into pull requests, where people act on them. Every value
// that comes from outside kvparity's own words (the row file, the exception records, the
// journal, a replay's output or error) goes into them through one of these functions, chosen
// by where it lands, so that it stays text: no raw HTML, link, image, mention, emphasis,
// heading or line break of its own. Ordinary values (words, numbers, paths with / and -,
// identifiers with inner underscores, SHA prefixes) come out byte for byte as they went in.
//
//	mdText    inline text: paragraph, list item, heading, table cell (with cell), link text
//	mdClip    mdText within a byte budget (clipTo's job for a bounded summary)
//	mdCode    a code span, its fence longer than any backtick run of the value
//	mdFence   a fenced code block around lines kept byte for byte
//	htmlText  text inside the HTML of a <details><summary> line
//	mdf       fmt.Sprintf with every string argument as mdText
//	cell      one table cell of Markdown already made safe: pipes and line breaks
//	mdURL     a relative link's destination

// zwj follows an "@" that could mention someone: GitHub links (and notifies) "@name" in text,
// never with a character between them, and the joiner is invisible.
const zwj = "\u200d"

// mdText escapes s as inline Markdown text on one line.
func mdText(s string) string { return escapeText(s, -1) }

// mdClip is clipTo for Markdown text: s on one line, escaped, and when that is over n bytes
// cut like clipTo (n-1 bytes, then "…"), between two escapes, never inside one: the bound is
// on what is written.
func mdClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if e := mdText(s); len(e) <= n {
		return e
	}
	return escapeText(s, n-1) + "…"
}

// escapeText escapes s rune by rune; with budget >= 0 it stops before the escape that would
// make the result longer than budget bytes.
func escapeText(s string, budget int) string {
	var b strings.Builder
	prev := rune(-1) // the previous rune of s; -1 at its start
	lead := true     // only spaces so far: a block marker here starts a block after "- " too
	domain := false  // after the "@" of a possible e-mail address, before its first "."
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		next := rune(-1)
		if i+size < len(s) {
			next, _ = utf8.DecodeRuneInString(s[i+size:])
		}
		e := escapeRune(s, i, prev, r, next, lead, &domain)
		if budget >= 0 && b.Len()+len(e) > budget {
			break
		}
		b.WriteString(e)
		prev, i, lead = r, i+size, lead && (e == " " || r == '\t')
	}
	return b.String()
}

// escapeRune is the text that stands for r, at byte i of s, between prev and next (-1 at
// either end); lead says only spaces (or line breaks) come before it.
func escapeRune(s string, i int, prev, r, next rune, lead bool, domain *bool) string {
	if r != '@' && r != '.' && !isWord(r) && r != '-' {
		*domain = false
	}
	switch r {
	case '\r', '\n', '\v', '\f', '\u0085', '\u2028', '\u2029': // a line break would start a block
		return " "
	case '\\', '`', '*', '~', '$': // '$' opens GitHub's math
		return `\` + string(r)
	case '[': // a link, an image, a reference definition, a task box, a footnote
		rest := s[i:]
		if lead || strings.Contains(rest, "](") || strings.Contains(rest, "][") || strings.Contains(rest, "]:") {
			return `\[`
		}
	case ']':
		if next == '(' || next == '[' || next == ':' {
			return `\]`
		}
	case '<': // raw HTML, autolinks
		return "&lt;"
	case '&': // an entity ("&lt;" would be read as "<")
		if entity.MatchString(s[i:]) {
			return "&amp;"
		}
	case '_': // emphasis, except inside a word, where CommonMark never reads it so
		if !intraword(s, i) {
			return `\_`
		}
	case '#': // a heading at the start, its closing sequence at the end
		if lead || strings.TrimRight(s[i:], "#") == "" && (prev == ' ' || prev == '\t') {
			return `\#`
		}
	case '>', '+', '-', '=': // a block quote, a list item, a rule or underline at the start
		if lead {
			return `\` + string(r)
		}
	case '.', ')': // an ordered list item "1." at the start; "www." and "a@b.c" autolinks
		if r == '.' && *domain {
			*domain = false
			return `\.`
		}
		if r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www") {
			if before, _ := utf8.DecodeLastRuneInString(s[:i-3]); i == 3 || !isWord(before) {
				return `\.`
			}
		}
		if digitsOnly(strings.TrimLeft(s[:i], " \t\r\n")) && (next < 0 || next == ' ' || next == '\t') {
			return `\` + string(r)
		}
	case ':': // "https://..." autolinks
		if strings.HasPrefix(s[i:], "://") {
			return `\:`
		}
	case '@':
		if isASCIIWord(next) {
			*domain = true
			if !isWord(prev) { // where GitHub reads a mention
				return "@" + zwj
			}
		}
	}
	if unicode.IsControl(r) && r != '\t' {
		return controlPicture(r)
	}
	return string(r)
}

// entity is what CommonMark reads as a character reference.
var entity = regexp.MustCompile(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});`)

// intraword says the run of "_" at byte i of s has a letter or a digit (neither a space, a
// punctuation mark nor a symbol) on both sides: CommonMark never reads such a run as emphasis.
func intraword(s string, i int) bool {
	j := strings.TrimRight(s[:i], "_")
	k := strings.TrimLeft(s[i:], "_")
	before, _ := utf8.DecodeLastRuneInString(j)
	after, _ := utf8.DecodeRuneInString(k)
	return j != "" && k != "" && plain(before) && plain(after)
}

func plain(r rune) bool {
	return r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.IsPunct(r) && !unicode.IsSymbol(r) && !unicode.IsControl(r)
}

func isWord(r rune) bool      { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
func isASCIIWord(r rune) bool { return r < utf8.RuneSelf && r >= 0 && isWord(r) }

func digitsOnly(s string) bool {
	return s != "" && strings.TrimLeft(s, "0123456789") == ""
}

// controlPicture is a control character as its visible symbol (U+2400 block): a terminal
// showing the file never runs an escape sequence, a reader still sees one was there.
func controlPicture(r rune) string {
	switch {
	case r < 0x20:
		return string(0x2400 + r)
	case r == 0x7f:
		return "\u2421"
	}
	return "\ufffd"
}

// mdCode is s as a code span: nothing in it is Markdown, HTML, a link or a mention. Its fence
// is one backtick longer than the longest run in s, padded when s starts or ends with a
// backtick or a space (CommonMark strips one space from each side); a line break, which would
// end the span's paragraph, is shown as its symbol.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029':
			return '␤'
		case r == '\t':
			return r
		case unicode.IsControl(r):
			return []rune(controlPicture(r))[0]
		}
		return r
	}, s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "" {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// mdFence is body as a fenced code block with info as its info string: the fence is longer
// than any backtick run in body, so no line of it ends the block, and the body is kept byte for
// byte (row.toml as frozen, the replay arguments, commands to copy).
func mdFence(info, body string) string {
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + info + "\n" + strings.TrimRight(body, "\n") + "\n" + fence
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := range len(s) {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// htmlText is s as text inside an HTML block (a <details><summary> line): HTML-escaped, on
// one line (a blank line would end the block and let what follows be Markdown), mentions
// broken like mdText's.
func htmlText(s string) string {
	var b strings.Builder
	prev := rune(-1)
	for i, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\r', '\n', '\v', '\f', '\u0085', '\u2028', '\u2029':
			b.WriteByte(' ')
		case '@':
			b.WriteByte('@')
			if next, _ := utf8.DecodeRuneInString(s[i+1:]); !isWord(prev) && isASCIIWord(next) {
				b.WriteString(zwj)
			}
		default:
			if unicode.IsControl(r) && r != '\t' {
				b.WriteString(controlPicture(r))
			} else {
				b.WriteRune(r)
			}
		}
		prev = r
	}
	return b.String()
}

// cell keeps Markdown that is already safe inside one table cell: a pipe would end the cell
// (GFM unescapes "\|" before it reads the cell, code spans included) and a line break the row.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// mdURL is a relative path as a link destination: every byte but ASCII letters, digits and
// "-._~/" percent-encoded, so that it is never a scheme ("javascript:"), never ends the
// destination and never holds a space.
func mdURL(p string) string {
	var b strings.Builder
	for i := range len(p) {
		c := p[i]
		if c < utf8.RuneSelf && (isWord(rune(c)) || strings.IndexByte("-.~/", c) >= 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// mdf is fmt.Sprintf for Markdown: the format is kvparity's Markdown, every string argument
// a value written as mdText (%q quotes the value first, then escapes the quoted text).
func mdf(format string, a ...any) string {
	args := make([]any, len(a))
	for i, v := range a {
		if s, ok := v.(string); ok {
			args[i] = mdValue(s)
		} else {
			args[i] = v
		}
	}
	return fmt.Sprintf(format, args...)
}

// An mdValue is a string argument of mdf.
type mdValue string

func (v mdValue) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprint(f, mdText(strconv.Quote(string(v))))
		return
	}
	fmt.Fprint(f, mdText(string(v)))
}
