// Package engine runs parity campaigns: frozen rows, pinned artifacts and trace windows, the
// process runner with CPU pinning, the determinism and performance stages, the crash-safe
// journal, and artifact watching. It publishes typed events on a channel and never imports
// the UI.
package engine
