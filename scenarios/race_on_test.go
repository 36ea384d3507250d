//go:build race

package scenarios_test

// raceEnabled: the race detector slows every run several times over, which
// stretches timing-sensitive scenarios; the catalogue test then runs its
// short subset and CI runs the full catalogue in a step of its own.
const raceEnabled = true
