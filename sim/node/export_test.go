package node

// NodePID exposes a redis node's process id to the external tests (0 for
// other backends or a killed node), so they can check nothing outlives Close.
func NodePID(n Node) int {
	if r, ok := n.(*redisNode); ok {
		return r.pid()
	}
	return 0
}
