//go:build race

package main

// raceDetector: timings under the race detector are several times slower and not asserted.
const raceDetector = true
