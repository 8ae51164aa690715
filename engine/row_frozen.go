package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"kvparity/internal/layout"
)

// The frozen row stays frozen. The campaign's founding record holds row.toml's SHA-256 and its
// text, so a row.toml edited after the campaign froze it (a widened exclusion, another
// repetition count, a changed replay argument) is caught: a resume refuses it, naming the file
// and the first key that differs, and the report reads the row the verdicts used from the
// journal, not the edited file.

// frozenRowRecord is the founding campaign record of a row frozen as text.
func frozenRowRecord(name string, text []byte) Record {
	return Record{Type: RecCampaign, Note: name, RowSHA256: sha256Hex(text), RowTOML: string(text)}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A RowEditedError says row.toml is not the row its campaign froze.
type RowEditedError struct {
	file        string // row.toml's path
	key         string // the first key that differs, "[table] key"; "" when only comments or spacing do
	frozen, now string // that key's values as TOML ("(absent)" when missing)
	frozenSHA   string
	nowSHA      string
}

func (e *RowEditedError) Error() string {
	what := "only comments or spacing differ"
	if e.key != "" {
		what = fmt.Sprintf("first difference at %s: frozen %s, now %s", e.key, e.frozen, e.now)
	}
	return fmt.Sprintf("%s was edited after the campaign froze it (SHA-256 %.12s…, frozen %.12s…); %s. The verdicts were reached with the frozen row: restore it (the journal's first record holds its text), or start a new campaign from the edited row",
		e.file, e.nowSHA, e.frozenSHA, what)
}

// CheckFrozenRow compares the campaign's row.toml with the row its founding record froze; a
// campaign from before the record carried the row has nothing to compare and passes.
func CheckFrozenRow(dir string, recs []Record) error {
	frozen, ok := FrozenRowText(recs)
	if !ok {
		return nil
	}
	path := filepath.Join(dir, layout.FileRow)
	now, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("campaign %s: %w", dir, err)
	}
	if sha256Hex(now) == recs[0].RowSHA256 {
		return nil
	}
	e := &RowEditedError{file: path, frozenSHA: recs[0].RowSHA256, nowSHA: sha256Hex(now)}
	e.key, e.frozen, e.now = firstDifferingKey(frozen, string(now))
	return e
}

// FrozenRowText is the row text the journal's founding record froze (ok false for a campaign
// whose journal predates it).
func FrozenRowText(recs []Record) (string, bool) {
	if len(recs) == 0 || recs[0].Type != RecCampaign || recs[0].RowSHA256 == "" {
		return "", false
	}
	return recs[0].RowTOML, true
}

// firstDifferingKey is the first key, in the frozen row's order and then the edited one's,
// whose value differs, with both values; "" when every key holds the same value.
func firstDifferingKey(frozen, now string) (key, was, is string) {
	var a, b map[string]any
	mdA, errA := toml.Decode(frozen, &a)
	mdB, errB := toml.Decode(now, &b)
	if errB != nil {
		return "(the whole file)", "a valid row", "not TOML: " + errB.Error()
	}
	if errA != nil {
		return "", "", ""
	}
	for _, keys := range [][]toml.Key{mdA.Keys(), mdB.Keys()} {
		for _, k := range keys {
			va, okA := lookup(a, k)
			vb, okB := lookup(b, k)
			if _, table := va.(map[string]any); table && okA && okB {
				if _, tb := vb.(map[string]any); tb {
					continue // a table: its keys are compared one by one
				}
			}
			if okA == okB && reflect.DeepEqual(va, vb) {
				continue
			}
			return keyName(k), tomlValue(va, okA), tomlValue(vb, okB)
		}
	}
	return "", "", ""
}

func lookup(m map[string]any, k toml.Key) (any, bool) {
	var cur any = m
	for _, part := range k {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = t[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// keyName writes a key as the row's errors do: "[table] key", or the key alone at the top.
func keyName(k toml.Key) string {
	if len(k) == 1 {
		return k[0]
	}
	return "[" + strings.Join(k[:len(k)-1], ".") + "] " + k[len(k)-1]
}

func tomlValue(v any, ok bool) string {
	if !ok {
		return "(absent)"
	}
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(map[string]any{"v": v}); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sb.String()), "v ="))
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}
