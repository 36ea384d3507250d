package network

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Dying connections and toxiproxy's toxic lock.
//
// Toxiproxy (v2.12.0, in process or remote) can deadlock when a toxic is
// added to or removed from a proxy while one of the proxy's connections
// dies (Shopify/toxiproxy#558). Each connection is two links, one per
// direction: a reader, a chain of toxics, and a writer that alone takes
// what the last toxic hands on. RemoveToxic and AddToxic hold the proxy's
// toxic lock while they interrupt a toxic on every link; a latency toxic
// answers an interrupt only between handing chunks on, and it holds chunks
// for the whole latency. A writer whose destination is gone (its node
// killed, its connection closed by a failover's redirection) gives up at
// its next write and, before anything else, waits for that same lock to
// unregister its link; the latency toxic behind it then blocks for good on
// its next chunk, and the RemoveToxic waiting for that toxic never returns.
// Without a toxic call in progress the same writer unregisters at once and
// nothing waits on its link again.
//
// So locksim lets a proxy's dying connections unwind before it touches the
// proxy's toxics: whoever ends the connections at an endpoint (a node's
// kill, a failover's redirection) calls Ending first, and every toxic call
// on those proxies waits until their connections have had the time to
// unwind: what the latency toxics hold is handed on within their latency
// plus jitter, the writer to the dead end fails and unregisters, the other
// direction drains its last replies (messages already sent land) and
// closes. Removing the toxics while they still hold data would not do
// (that call is the deadlock), nor would closing the proxy's connections
// first (they then die with data held, the same race), nor would setting
// the latency to 0 (an update interrupts the toxic the same way); deleting
// and re-creating the proxy would be safe but would drop what live
// connections still carry. The price: a heal on such a proxy comes late by
// up to settleFor of its latency, and only within that time of the kill.
// A toxic call that still does not return (a connection closed by a client
// at the wrong instant) is bounded (toxicCallBound) and fails the run.

// settleFor is how long after its connections are ended a proxy whose
// toxics delay each message by up to lag (latency plus jitter, summed over
// its toxics) is left alone: the replies held towards the live end land
// within lag, and the connection closes behind them; what that end sent
// until then is handed on towards the dead end within another lag, where
// the writer fails or the link closes; and a second's margin for a loaded
// machine (were it short, a toxic call could still deadlock, and
// toxicCallBound would fail the run rather than let it hang).
func settleFor(lag time.Duration) time.Duration { return 2*lag + time.Second }

// Ending says that the connections with e at one end are about to end
// (e's process is killed, or its proxies redirected): their proxies' toxics
// are left alone until those connections have unwound. Call it before
// ending them. Networks carried in memory have nothing to wait for.
func (n *Network) Ending(e Endpoint) {
	if n == nil || n.mem != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for l, p := range n.proxies {
		if l.Has(e) {
			n.endingLocked(l, p)
		}
	}
}

// endingLocked marks the proxy p of link l as settling, if a delay in force
// on l holds data in it.
func (n *Network) endingLocked(l Link, p *linkProxy) {
	var lag time.Duration
	for _, e := range n.effects {
		if len(e.toxics) > 0 && (e.fault.Latency > 0 || e.fault.Jitter > 0) && slices.Contains(e.links, l) {
			lag += e.fault.Latency + e.fault.Jitter
		}
	}
	if lag == 0 {
		return
	}
	if until := time.Now().Add(settleFor(lag)); until.After(n.settle[p.name]) {
		n.settle[p.name] = until
	}
}

// errNetworkClosed ends a wait for a proxy to settle when the network closes.
var errNetworkClosed = errors.New("network closed")

// awaitSettled returns once proxy's ended connections have unwound (at
// once if none were ended), or with an error when the network closes.
func (n *Network) awaitSettled(proxy string) error {
	n.mu.Lock()
	until, done := n.settle[proxy], n.done
	n.mu.Unlock()
	wait := time.Until(until)
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-done:
		return fmt.Errorf("proxy %s: %w", proxy, errNetworkClosed)
	}
}

// toxicCallBound bounds one toxic call: the in-process toxiproxy's take no
// context, and a remote server answers a stuck one only when its own
// request timeout runs out. Past it, the call is reported as deadlocked
// (Shopify/toxiproxy#558) and the run fails instead of hanging. Legitimate
// calls take milliseconds; one that drains a dead link gives up on each
// chunk after toxiproxy's own 5 s. An in-process call left behind cannot be
// stopped: the goroutine is toxiproxy's to leak, and the failed run says so.
const toxicCallBound = time.Minute

// boundedToxicCall runs call, giving up after bound.
func boundedToxicCall(what string, bound time.Duration, call func() error) error {
	done := make(chan error, 1)
	go func() { done <- call() }()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("%s: toxiproxy did not return in %v: its proxy is deadlocked (a connection died during the call, Shopify/toxiproxy#558); the run cannot go on", what, bound)
	}
}
