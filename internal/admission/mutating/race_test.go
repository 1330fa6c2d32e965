//go:build race

package mutating

// raceEnabled skips timing tests under the race detector.
const raceEnabled = true
