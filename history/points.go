package history

import "github.com/locksim/locksim/vocab"

// Point names where a client is: a step of the simulator's client loop, or
// a step inside a lock design that the design announces through its hook
// (vocab.Point, whose constants name every point).
type Point = vocab.Point
