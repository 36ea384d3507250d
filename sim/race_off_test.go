//go:build !race

package sim_test

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
