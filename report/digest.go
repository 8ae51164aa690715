package report

import (
	"crypto/sha256"
	"encoding/hex"
)

// parallelDigestMin: below this size a second goroutine costs more than it saves.
var parallelDigestMin = 1 << 20

// CanonicalizeAndDigest is canonicalizeAndCheck plus Digest of the canonical bytes. On the
// common path (a harness line that is already canonical) it hashes on a second goroutine while
// the record is still being checked, so a 20 MB report costs about the larger of the two rather
// than their sum.
func CanonicalizeAndDigest(record []byte, p Profile) (canonical []byte, digest string, breakPointer string, err error) {
	if len(record) >= parallelDigestMin {
		root, err := compileProfile(p)
		if err != nil {
			return nil, "", "", err
		}
		if out, sum, ok := fastDigest(record, root); ok {
			return out, sum, "", nil
		}
	}
	canonical, breakPointer, err = canonicalizeAndCheck(record, p)
	if err != nil {
		return nil, "", "", err
	}
	return canonical, Digest(canonical), breakPointer, nil
}

// fastDigest runs the fast path with a hashing goroutine fed the final input spans; ok=false
// when the fast path declined (the partial hash is discarded).
func fastDigest(record []byte, root *ptrNode) (canonical []byte, digest string, ok bool) {
	feed := make(chan span, 64)
	sum := make(chan []byte, 1)
	go func() {
		h := sha256.New()
		for sp := range feed {
			h.Write(record[sp.start:sp.end])
		}
		h.Write([]byte{'\n'})
		sum <- h.Sum(nil)
	}()
	out, f, ok := runFast(record, root, feed)
	if !ok {
		close(feed)
		<-sum
		return nil, "", false
	}
	// The rest of the record, minus the cuts (which all lie beyond what was sent).
	prev := f.sent
	for _, c := range f.cuts {
		if c.start < prev {
			// Cannot happen (cuts are never sent); keep the answer right regardless.
			close(feed)
			<-sum
			return out, Digest(out), true
		}
		feed <- span{prev, c.start}
		prev = c.end
	}
	feed <- span{prev, int32(len(f.in))}
	close(feed)
	return out, hex.EncodeToString(<-sum), true
}

// Digest is the report digest of the protocol: lowercase hex SHA-256 of the canonical bytes
// (compact JSON plus "\n"), which equals sha256sum of a one-line canonical JSONL file.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
