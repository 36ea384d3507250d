package bench

import (
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/locksim/locksim/lock"
)

// accumulator adds up one design's segments in one cell.
type accumulator struct {
	acquire, cycle *hdr.Histogram
	measured       time.Duration
	cycles         int64
	rounds         []float64
	roundP99       []float64      // each round's acquire p99, µs
	segment        *hdr.Histogram // one round's acquire latencies, for roundP99
	attempts       int64
	refused        int64
	errs           int64
	firstErr       error
	spent          costReading // the process's allocations and CPU over the segments
}

func newAccumulator() *accumulator {
	return &accumulator{acquire: newHist(), cycle: newHist(), segment: newHist()}
}

// add takes in one segment of length d, in which the process spent spent,
// and resets the meters for the next.
func (a *accumulator) add(meters []*meter, d time.Duration, spent costReading) {
	a.spent.allocs += spent.allocs
	a.spent.cpu += spent.cpu
	var cycles int64
	a.segment.Reset()
	for _, m := range meters {
		a.acquire.Merge(m.acquire)
		a.segment.Merge(m.acquire)
		a.cycle.Merge(m.cycle)
		cycles += m.cycles
		a.attempts += m.attempts
		a.refused += m.refused
		a.errs += m.errs
		if a.firstErr == nil {
			a.firstErr = m.firstErr
		}
		m.reset()
	}
	a.cycles += cycles
	a.measured += d
	a.rounds = append(a.rounds, float64(cycles)/d.Seconds())
	a.roundP99 = append(a.roundP99, percentiles(a.segment).P99)
}

func (a *accumulator) result(algo string, c cell) Result {
	r := Result{
		Algorithm: algo, Kind: kindOf(algo), Nodes: c.nodes, Clients: c.clients, Contention: c.contention,
		Seconds: a.measured.Seconds(), Cycles: a.cycles, RoundThroughput: a.rounds, RoundAcquireP99: a.roundP99,
		Attempts: a.attempts, Refused: a.refused, Errors: a.errs,
		Acquire: percentiles(a.acquire), Cycle: percentiles(a.cycle),
		acquireHist: a.acquire,
	}
	if a.measured > 0 {
		r.Throughput = float64(a.cycles) / a.measured.Seconds()
	}
	if a.cycles > 0 {
		r.AllocsPerCycle = float64(a.spent.allocs) / float64(a.cycles)
		r.CPUPerCycleUs = float64(a.spent.cpu) / float64(time.Microsecond) / float64(a.cycles)
	}
	if a.firstErr != nil {
		r.FirstErr = a.firstErr.Error()
	}
	return r
}

func kindOf(algo string) Kind {
	if algo == Raw {
		return KindRaw
	}
	if i, err := lock.Lookup(algo); err == nil && i.Peer {
		return KindPeer
	}
	return KindDesign
}

// sortResults orders results by contention, then design (as configured),
// then nodes and clients.
func sortResults(rs []Result, algos []string) {
	rank := func(a string) int { return slices.Index(algos, a) }
	cont := func(c Contention) int { return slices.Index(Contentions(), c) }
	slices.SortStableFunc(rs, func(a, b Result) int {
		switch {
		case a.Contention != b.Contention:
			return cont(a.Contention) - cont(b.Contention)
		case a.Algorithm != b.Algorithm:
			return rank(a.Algorithm) - rank(b.Algorithm)
		case a.Nodes != b.Nodes:
			return a.Nodes - b.Nodes
		}
		return a.Clients - b.Clients
	})
}
