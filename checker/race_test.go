//go:build race

package checker

// raceEnabled: the race detector is on (go test -race).
const raceEnabled = true
