//go:build !amd64

package mocker

// callgrindToggleCollect is callgrind's client request where kvparity knows its sequence
// (amd64); elsewhere the instruction instrument counts nothing and says so.
func callgrindToggleCollect() {}
