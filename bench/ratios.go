package bench

import (
	"fmt"
	"slices"
)

// Peers: the library each of locksim's own designs is held against.
const (
	PeerSingle = "redislock" // for single-node designs
	PeerMulti  = "redsync"   // for multi-node designs
)

// peerOf is the peer a design is compared with; "" for the references.
func peerOf(algo string) string {
	switch kindOf(algo) {
	case KindRaw, KindPeer:
		return ""
	}
	if multiNode(algo) {
		return PeerMulti
	}
	return PeerSingle
}

func find(rs []Result, algo string, nodes, clients int, m Contention) *Result {
	for i := range rs {
		r := &rs[i]
		if r.Algorithm == algo && r.Nodes == nodes && r.Clients == clients && r.Contention == m {
			return r
		}
	}
	return nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// addRatios fills VsRaw (raw runs at one node, so every design is held
// against raw at the same clients and contention) and VsPeer.
func addRatios(rs []Result) {
	for i := range rs {
		r := &rs[i]
		if raw := find(rs, Raw, 1, r.Clients, r.Contention); raw != nil && r.Algorithm != Raw {
			r.VsRaw = ratio(r.Throughput, raw.Throughput)
		}
		if p := peerOf(r.Algorithm); p != "" {
			if peer := find(rs, p, r.Nodes, r.Clients, r.Contention); peer != nil {
				r.Peer, r.VsPeer = p, ratio(r.Throughput, peer.Throughput)
			}
		}
	}
}

// The goals.
const (
	overheadGoal = 0.95 // setpx keeps at least 95% of the raw limit's throughput
)

// comparisons are the headline ratios: the harness overhead (setpx against
// raw), setpx against redislock and redlock against redsync at the largest
// cluster (5 nodes by default), for every clients and contention measured.
func comparisons(rs []Result) []Comparison {
	var out []Comparison
	multi := 0
	for _, r := range rs {
		if r.Algorithm == "redlock" || r.Algorithm == PeerMulti {
			multi = max(multi, r.Nodes)
		}
	}
	pairs := []struct {
		title, design, ref string
		nodes              int
		goal               string
		met                func(c Comparison) bool
	}{
		{"harness overhead", "setpx", Raw, 1,
			fmt.Sprintf("throughput >= %.2f x raw", overheadGoal),
			func(c Comparison) bool { return c.Throughput >= overheadGoal }},
		{"setpx vs redislock", "setpx", PeerSingle, 1,
			"throughput >= 1.00 x and cycle p99 <= 1.00 x redislock",
			func(c Comparison) bool { return c.Throughput >= 1 && c.CycleP99 <= 1 }},
		{fmt.Sprintf("redlock vs redsync, %d nodes", multi), "redlock", PeerMulti, multi,
			"throughput >= 1.00 x and cycle p99 <= 1.00 x redsync",
			func(c Comparison) bool { return c.Throughput >= 1 && c.CycleP99 <= 1 }},
	}
	for _, p := range pairs {
		for _, d := range rs {
			if d.Algorithm != p.design || d.Nodes != p.nodes {
				continue
			}
			ref := find(rs, p.ref, p.nodes, d.Clients, d.Contention)
			if ref == nil {
				continue
			}
			c := Comparison{
				Title: p.title, Design: p.design, Reference: p.ref,
				Nodes: p.nodes, Clients: d.Clients, Contention: d.Contention,
				Throughput: ratio(d.Throughput, ref.Throughput),
				AcquireP99: ratio(d.Acquire.P99, ref.Acquire.P99),
				CycleP99:   ratio(d.Cycle.P99, ref.Cycle.P99),
				Goal:       p.goal,
			}
			var per []float64
			for i := range min(len(d.RoundThroughput), len(ref.RoundThroughput)) {
				per = append(per, ratio(d.RoundThroughput[i], ref.RoundThroughput[i]))
			}
			if len(per) > 0 {
				c.RoundMin, c.RoundMax = slices.Min(per), slices.Max(per)
			}
			c.Met = p.met(c)
			out = append(out, c)
		}
	}
	return out
}
