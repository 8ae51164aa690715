package engine

import (
	"os"

	armkind "kvparity/engine/arm"
)

// elfSizes are a file's .text bytes and the bytes its debug sections take, as the footprint of
// a binary arm (engine/arm) reads them: what the pin records (tests compare with it).
func elfSizes(path string) (text, debug int64, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	f, err := armkind.Binary{}.Footprint(path, st.Size())
	if f.TextSize > 0 {
		debug = st.Size() - f.ShippedSize
	}
	return f.TextSize, debug, err
}
