//go:build race

package policy

// raceEnabled skips timing tests under the race detector.
const raceEnabled = true
