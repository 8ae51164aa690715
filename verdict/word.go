package verdict

import "fmt"

// A Word is one verdict word. The zero value is Undecided.
type Word string

// The verdict words (docs/guide.md, "Headless mode and exit codes").
const (
	// Undecided: the stage has not reached a verdict (not run, in progress, interrupted).
	Undecided Word = "UNDECIDED"
	// Per revision (protocol stage 4).
	Stable   Word = "STABLE"
	Unstable Word = "UNSTABLE"
	// Semantic, performance, footprint and overall.
	Pass                       Word = "PASS"
	PassWithSemanticExceptions Word = "PASS_WITH_SEMANTIC_EXCEPTIONS"
	Fail                       Word = "FAIL"
	Inconclusive               Word = "INCONCLUSIVE"
	// Blocked: the row cannot go on (a replay failed, a guard refused it).
	Blocked Word = "BLOCKED"
)

var known = map[Word]bool{Undecided: true, Stable: true, Unstable: true, Pass: true,
	PassWithSemanticExceptions: true, Fail: true, Inconclusive: true, Blocked: true}

// orUndecided is w, or Undecided for the zero Word (a verdict never written): every method
// reads a word through it, so no caller has to normalise one first.
func (w Word) orUndecided() Word {
	if w == "" {
		return Undecided
	}
	return w
}

// String is the word as written everywhere.
func (w Word) String() string { return string(w.orUndecided()) }

// Decided reports whether w is a verdict rather than Undecided.
func (w Word) Decided() bool { return w.orUndecided() != Undecided }

// Passes reports whether w lets the row pass: PASS, PASS_WITH_SEMANTIC_EXCEPTIONS, STABLE.
func (w Word) Passes() bool {
	return w == Pass || w == PassWithSemanticExceptions || w == Stable
}

// Fails reports whether w fails the row: FAIL or UNSTABLE.
func (w Word) Fails() bool { return w == Fail || w == Unstable }

// Parse reads a recorded word; "" (a field never written) is Undecided.
func Parse(s string) (Word, error) {
	w := Word(s).orUndecided()
	if !known[w] {
		return Undecided, fmt.Errorf("verdict: %q is not a verdict word", s)
	}
	return w, nil
}

// MarshalText writes Undecided for the zero Word, so no surface prints an empty verdict.
func (w Word) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText refuses a word outside the vocabulary.
func (w *Word) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*w = p
	return nil
}

// A Tone is how a surface should present a word: the workbench's colours and the status
// counts both read it, so a word is never good in one place and a warning in another.
type Tone int

const (
	TonePending Tone = iota // Undecided
	ToneGood                // PASS, STABLE
	ToneNote                // PASS_WITH_SEMANTIC_EXCEPTIONS: a pass whose differences were explained
	ToneWarn                // INCONCLUSIVE
	ToneBad                 // FAIL, UNSTABLE, BLOCKED
)

// Tone is w's presentation class.
func (w Word) Tone() Tone {
	switch w.orUndecided() {
	case Pass, Stable:
		return ToneGood
	case PassWithSemanticExceptions:
		return ToneNote
	case Fail, Unstable, Blocked:
		return ToneBad
	case Inconclusive:
		return ToneWarn
	}
	return TonePending
}

// An Outcome is a verdict with its reason in words.
type Outcome struct {
	Verdict Word   `json:"verdict"`
	Reason  string `json:"reason"`
}

// Of is an Outcome.
func Of(w Word, reason string, args ...any) Outcome {
	if len(args) > 0 {
		reason = fmt.Sprintf(reason, args...)
	}
	return Outcome{Verdict: w.orUndecided(), Reason: reason}
}
