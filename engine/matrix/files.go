package matrix

import (
	"encoding/json"

	"kvparity/internal/atomicfile"
)

// writeJSONFile writes v as indented JSON (the campaign files' form) through a temporary file
// and a rename, so a reader on another node never sees half a file.
func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Update(path, append(data, '\n'), 0o644)
}
