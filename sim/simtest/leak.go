package simtest

import "go.uber.org/goleak"

// LeakOptions are what goleak must ignore in packages whose tests run
// toxiproxy. Its link goroutines (one per toxic stub) can still be blocked
// on a channel send to a stub that has just been removed when a proxy stops,
// and they end on their own once the link drains; they are toxiproxy's,
// not a goroutine locksim started and lost.
func LeakOptions() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreTopFunction("github.com/Shopify/toxiproxy/v2/toxics.(*NoopToxic).Pipe"),
		goleak.IgnoreTopFunction("github.com/Shopify/toxiproxy/v2/toxics.(*LatencyToxic).Pipe"),
	}
}
