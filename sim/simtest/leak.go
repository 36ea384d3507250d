package simtest

import "go.uber.org/goleak"

// LeakOptions are what goleak must ignore in packages whose tests run
// toxiproxy. When a link's destination write fails (a node killed, a
// connection reset at a heal), toxiproxy v2.12.0 stops draining the link and
// the toxic goroutine ahead of it stays blocked on a channel send for good.
// They are toxiproxy's goroutines, not ones locksim started and lost, but a
// long matrix run accumulates them: a known limitation, not a clean bill.
func LeakOptions() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreTopFunction("github.com/Shopify/toxiproxy/v2/toxics.(*NoopToxic).Pipe"),
		goleak.IgnoreTopFunction("github.com/Shopify/toxiproxy/v2/toxics.(*LatencyToxic).Pipe"),
		// go-redis retries a failed dial from a goroutine of the pool's
		// that sleeps a second between tries and ends at its next wake
		// once the pool is closed: a client whose node was just stopped
		// leaves one behind for up to a second after Close.
		goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9/internal/pool.(*ConnPool).tryDial"),
	}
}
