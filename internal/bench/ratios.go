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

// MinRepeats is how many rounds a ratio's median needs before the summary
// calls it more than a single measurement.
const MinRepeats = 3

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

// Spread is a ratio measured once per round: the median of the rounds and
// their lowest and highest. Within a round the two designs ran back to
// back, so each round's ratio compares like with like; the range shows how
// far a noisy machine moved it.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Rounds int     `json:"rounds"`
}

// Band is half the min-max range: how far a round's ratio strayed from
// the middle.
func (s Spread) Band() float64 { return (s.Max - s.Min) / 2 }

// Contains reports whether v lies within the rounds' range.
func (s Spread) Contains(v float64) bool { return s.Rounds > 0 && s.Min <= v && v <= s.Max }

func (s Spread) String() string {
	return fmt.Sprintf("%.2f (%.2f–%.2f)", s.Median, s.Min, s.Max)
}

// roundSpread is the spread of a / b over the rounds both ran (a round
// where b did nothing is left out: there is no ratio).
func roundSpread(a, b []float64) Spread {
	var per []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			per = append(per, a[i]/b[i])
		}
	}
	if len(per) == 0 {
		return Spread{}
	}
	slices.Sort(per)
	med := per[len(per)/2]
	if len(per)%2 == 0 {
		med = (per[len(per)/2-1] + per[len(per)/2]) / 2
	}
	return Spread{Median: med, Min: per[0], Max: per[len(per)-1], Rounds: len(per)}
}

// addRatios fills VsRaw (against raw at the same nodes, clients and
// contention: at one node the single-instance loop, at N the bare majority
// fan-out) and VsPeer (against the design's peer at the same cell), each
// the median of the per-round ratios with its spread.
func addRatios(rs []Result) {
	for i := range rs {
		r := &rs[i]
		if raw := find(rs, Raw, r.Nodes, r.Clients, r.Contention); raw != nil && r.Algorithm != Raw {
			r.VsRawRounds = roundSpread(r.RoundThroughput, raw.RoundThroughput)
			r.VsRaw = r.VsRawRounds.Median
			r.VsRawP99Rounds = roundSpread(r.RoundAcquireP99, raw.RoundAcquireP99)
		}
		if p := peerOf(r.Algorithm); p != "" {
			if peer := find(rs, p, r.Nodes, r.Clients, r.Contention); peer != nil {
				r.Peer = p
				r.VsPeerRounds = roundSpread(r.RoundThroughput, peer.RoundThroughput)
				r.VsPeer = r.VsPeerRounds.Median
			}
		}
	}
}

// The cost goals the headline holds each design to.
const (
	overheadGoal = 0.95 // setpx keeps at least 95% of the raw limit's throughput
	fanoutGoal   = 0.90 // redlock keeps at least 90% of the raw fan-out's throughput
)

// pair is one kind of headline comparison.
type pair struct {
	title, design, ref string
	multi              bool // at every multi-node size measured, else at one node
	goal               string
	met                func(c Comparison) bool // nil: no goal, shown for reference
}

var headlinePairs = []pair{
	{"harness overhead: setpx vs raw", "setpx", Raw, false,
		fmt.Sprintf("throughput >= %.2f x raw", overheadGoal),
		func(c Comparison) bool { return c.Throughput >= overheadGoal }},
	{"setpx vs redislock", "setpx", PeerSingle, false,
		"throughput >= 1.00 x redislock",
		func(c Comparison) bool { return c.Throughput >= 1 }},
	{"redlock vs raw fan-out", "redlock", Raw, true,
		fmt.Sprintf("throughput >= %.2f x raw", fanoutGoal),
		func(c Comparison) bool { return c.Throughput >= fanoutGoal }},
	{"redsync vs raw fan-out", PeerMulti, Raw, true, "", nil},
	{"redlock vs redsync", "redlock", PeerMulti, true,
		"throughput >= 1.00 x redsync",
		func(c Comparison) bool { return c.Throughput >= 1 }},
}

// comparisons are the headline ratios: the harness overhead (setpx against
// raw), setpx against redislock, and at every multi-node size redlock and
// redsync against the raw fan-out and redlock against redsync, for every
// clients and contention measured. Each is the median of the per-round
// ratios.
func comparisons(rs []Result) []Comparison {
	var out []Comparison
	for _, p := range headlinePairs {
		for _, d := range rs {
			if d.Algorithm != p.design || (d.Nodes > 1) != p.multi {
				continue
			}
			ref := find(rs, p.ref, d.Nodes, d.Clients, d.Contention)
			if ref == nil {
				continue
			}
			title := p.title
			if p.multi {
				title = fmt.Sprintf("%s, %d nodes", p.title, d.Nodes)
			}
			sp := roundSpread(d.RoundThroughput, ref.RoundThroughput)
			c := Comparison{
				Title: title, Design: p.design, Reference: p.ref,
				Nodes: d.Nodes, Clients: d.Clients, Contention: d.Contention,
				Throughput: sp.Median, RoundMin: sp.Min, RoundMax: sp.Max, Rounds: sp.Rounds,
				AcquireP99: ratio(d.Acquire.P99, ref.Acquire.P99),
				CycleP99:   ratio(d.Cycle.P99, ref.Cycle.P99),
				Goal:       p.goal,
			}
			if p.met != nil {
				c.Met = p.met(c)
			}
			c.Noise = noiseText(sp)
			out = append(out, c)
		}
	}
	return out
}

// noiseText says whether the design and its reference differ by more than
// the rounds moved: a ratio whose rounds fall on both sides of 1.00 is a
// difference inside the noise.
func noiseText(s Spread) string {
	switch {
	case s.Rounds == 0:
		return "no round to compare"
	case s.Rounds < MinRepeats:
		return fmt.Sprintf("only %d round(s): no spread to judge by", s.Rounds)
	case s.Contains(1):
		return "inside the noise: rounds on both sides of 1.00"
	case s.Min > 1:
		return "faster in every round"
	}
	return "slower in every round"
}
