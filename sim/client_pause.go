package sim

import "github.com/locksim/locksim/lock"

// Pause stops the whole client: its gate, so the client loop and its
// background goroutines block at their next step, and, for a design that
// runs as a child process, the child itself (SIGSTOP), which stops even in
// the middle of a command.
func (c *Client) Pause() {
	c.Gate.Pause()
	if p, ok := c.locker.(lock.ProcessControl); ok {
		_ = p.Stop()
	}
}

// Resume ends one Pause; the child is continued once the last pause ends.
func (c *Client) Resume() {
	c.Gate.Resume()
	if p, ok := c.locker.(lock.ProcessControl); ok && !c.Gate.Paused() {
		_ = p.Continue()
	}
}
