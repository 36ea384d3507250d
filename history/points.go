package history

// Point names where a client is: a step of the simulator's client loop, or
// a step inside a lock design that the design announces through its hook.
// Faults fire on points (the nth time a client reaches one), so scenario
// files name them; one type serves both kinds.
type Point string
