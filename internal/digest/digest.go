// Package digest hashes files: the one SHA-256 helper of pinning, source builds and the matrix.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// File is the hex SHA-256 of a file's bytes.
func File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
