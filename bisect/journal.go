package bisect

import (
	"encoding/json"
	"fmt"

	"kvparity/engine"
)

// The records of bisect.jsonl. Its first record founds the bisect (what is bisected); each
// probe judged appends one step. Resuming folds them back: a recorded step is never probed
// again.
const (
	recBisect engine.RecordType = "bisect"      // the bisect was started (Data: founding)
	recStep   engine.RecordType = "bisect_step" // a commit was judged (Data: Step)
)

// journalFile is the bisect's journal in its folder.
const journalFile = "bisect.jsonl"

// founding is what a bisect is over: a resume of another one is refused.
type founding struct {
	Row       string   `json:"row"`
	RowSHA256 string   `json:"row_sha256"` // the row as given, encoded
	Repo      string   `json:"repo"`
	Judge     Judge    `json:"judge"`
	Good      string   `json:"good"`
	Bad       string   `json:"bad"`
	Commits   []string `json:"commits"` // the first-parent history after good, oldest first
}

// sameAs says how f differs from the recorded o ("" when it does not).
func (f founding) sameAs(o founding) string {
	switch {
	case f.RowSHA256 != o.RowSHA256:
		return fmt.Sprintf("row %s (sha256 %.12s) is not the row it was started with (sha256 %.12s)", f.Row, f.RowSHA256, o.RowSHA256)
	case f.Judge != o.Judge:
		return fmt.Sprintf("--judge %s, it was started with --judge %s", f.Judge, o.Judge)
	case f.Good != o.Good || f.Bad != o.Bad:
		return fmt.Sprintf("--good %.12s --bad %.12s, it was started with --good %.12s --bad %.12s", f.Good, f.Bad, o.Good, o.Bad)
	}
	return ""
}

func dataOf(v any) json.RawMessage {
	b, _ := json.Marshal(v) // founding and Step hold strings, numbers and slices only
	return b
}

// fold reads a journal's records: the founding one and the steps in order.
func fold(recs []engine.Record) (*founding, []Step, error) {
	var f *founding
	var steps []Step
	for _, r := range recs {
		switch r.Type {
		case recBisect:
			x, err := engine.DecodePayload[founding](r)
			if err != nil {
				return nil, nil, err
			}
			f = x
		case recStep:
			s, err := engine.DecodePayload[Step](r)
			if err != nil {
				return nil, nil, err
			}
			steps = append(steps, *s)
		}
	}
	return f, steps, nil
}
