package sim

import "github.com/locksim/locksim/vocab"

// LoopPoints lists the client loop's points (vocab names them) in the
// order a cycle reaches them. The designs announce their internal points
// (lock.Points) through the same hook, with the same type.
var LoopPoints = vocab.LoopPoints()

// Access fixes whether a client takes the read or the write lock.
type Access string

const (
	AccessAny   Access = "" // drawn from ReadRatio each cycle
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)
