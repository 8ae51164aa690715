package driver

import (
	"path/filepath"

	"kvparity/engine"
)

// LoadRow reads a row file as every driver takes one: its relative paths are resolved against
// its folder. It returns the row and the file's absolute path (the campaign keeps the file).
func LoadRow(file string) (*engine.Row, string, error) {
	row, err := engine.LoadRow(file)
	if err != nil {
		return nil, "", err
	}
	abs, _ := filepath.Abs(file)
	row.WithBaseDir(filepath.Dir(abs))
	return row, abs, nil
}
