package bench

import (
	"fmt"
	"strings"
	"time"
)

// fmtDur renders a duration given in milliseconds as Go does ("1ms",
// "500ms", "0s").
func fmtDur(msv float64) string {
	return time.Duration(msv * float64(time.Millisecond)).String()
}

// fmtLatency renders microseconds with a unit and three significant digits.
func fmtLatency(us float64) string {
	switch {
	case us == 0:
		return "–"
	case us < 1000:
		return fmt.Sprintf("%.0f µs", us)
	case us < 10_000:
		return fmt.Sprintf("%.2f ms", us/1000)
	case us < 100_000:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.0f ms", us/1000)
}

func fmtRatio(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtRate(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Summary is summary.md: how the run was made, the headline ratios and the
// table.
func (r *Report) Summary() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if r.Under != nil {
		p("# lockbench under scenario %q\n\n", r.Under.Scenario)
	} else {
		p("# lockbench\n\n")
	}
	p("- Started: %s (UTC), wall time %.1f s\n", r.Started.Format("2006-01-02 15:04:05"), r.WallS)
	p("- Machine: %s (GOMAXPROCS %d), %s\n", r.Machine, r.Machine.GOMAXPROCS, r.Machine.Go)
	p("- Backend: %s, nodes started by the harness on loopback\n", r.Backend)
	if r.Command != "" {
		p("- Command: `%s`\n", r.Command)
	}
	p("\n")
	if r.Under != nil {
		r.underSummary(&b)
	} else {
		r.sweepSummary(&b)
	}
	if len(r.Notes) > 0 {
		p("## Notes\n\n")
		for _, n := range r.Notes {
			p("- %s\n", n)
		}
		p("\n")
	}
	return b.String()
}

func (r *Report) sweepSummary(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	s := r.Settings
	p("## How it was measured\n\n")
	p("- Each configuration was measured for %s in %d rounds. The designs that share a cell (clients, nodes, contention) "+
		"ran interleaved in the same process, the order rotated every round, each after an unmeasured warm-up of %s; "+
		"so ratios within a cell compare designs under the same conditions, and the per-round range shows how much the machine moved.\n",
		fmtDur(s.DurationS*1000), s.Rounds, fmtDur(s.WarmupS*1000))
	p("- One cycle: a blocking acquire, hold %s, release. The blocking acquire is lock.Blocking for every design "+
		"(and the same loop for raw): one attempt; a refused attempt counts as a failed acquire and is retried after "+
		"**%s plus up to %s of jitter** (the bench's small retry interval; the designs' default of 50 ms would measure sleep). Lock TTL %s.\n",
		fmtDur(s.HoldMs), fmtDur(s.RetryMs), fmtDur(s.RetryJitterMs), fmtDur(s.TTLMs))
	p("- Acquire latency runs from the first attempt to the lease (retries included); cycle latency to the release's reply. " +
		"HDR histograms, 3 significant digits. Errors are unknown outcomes (timeouts) and failed releases.\n")
	p("- `raw` is the raw limit: a bare go-redis loop of SET NX PX and EVALSHA of the compare-and-delete script, " +
		"with the same go-redis client settings, one client per bench client, the same keys, tokens and retry wait, and no lock package. " +
		"It sends each command under the run's context (go-redis's 1 s read timeout bounds it), as the single-node designs do " +
		"when no node timeout is set; multi-node designs bound each command with context.WithTimeout(node timeout).\n")
	p("- Every bench client has its own go-redis client per node, as separate processes would. Single-node designs and raw use one node; " +
		"multi-node designs every node of their size.\n")
	p("- ×raw: cycles/s over raw's at the same clients and contention; ×peer: over the peer's (redislock for single-node designs, " +
		"redsync for multi-node ones) at the same nodes, clients and contention.\n\n")

	if len(r.Comparisons) > 0 {
		p("## Headline ratios\n\n")
		p("Ratios are design / reference from this run; throughput above 1 and latency below 1 favour the design. " +
			"\"rounds\" is the lowest and highest ratio of single rounds, in which the two ran back to back.\n\n")
		p("| comparison | clients | contention | throughput | rounds | acquire p99 | cycle p99 | goal | met |\n")
		p("|---|---:|---|---:|---|---:|---:|---|---|\n")
		for _, c := range r.Comparisons {
			met := "no"
			if c.Met {
				met = "yes"
			}
			p("| %s | %d | %s | %.3f | %.2f–%.2f | %.2f | %.2f | %s | %s |\n", c.Title, c.Clients, c.Contention,
				c.Throughput, c.RoundMin, c.RoundMax, c.AcquireP99, c.CycleP99, c.Goal, met)
		}
		p("\n")
	}
	for _, m := range r.contentions() {
		p("## %s\n\n", upperFirst(contentionTitle(m)))
		p("| design | nodes | clients | cycles/s | ×raw | ×peer | failed acquires/s | errors | acquire p50 | p90 | p99 | p99.9 | max | cycle p50 | p99 | p99.9 |\n")
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, x := range r.Results {
			if x.Contention != m {
				continue
			}
			name := x.Algorithm
			switch x.Kind {
			case KindRaw:
				name = "**raw**"
			case KindPeer:
				name += " (peer)"
			}
			p("| %s | %d | %d | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				name, x.Nodes, x.Clients, fmtRate(x.Throughput), fmtRatio(x.VsRaw), fmtRatio(x.VsPeer),
				fmtRate(float64(x.Refused)/x.Seconds), x.Errors,
				fmtLatency(x.Acquire.P50), fmtLatency(x.Acquire.P90), fmtLatency(x.Acquire.P99), fmtLatency(x.Acquire.P999), fmtLatency(x.Acquire.Max),
				fmtLatency(x.Cycle.P50), fmtLatency(x.Cycle.P99), fmtLatency(x.Cycle.P999))
		}
		p("\n")
	}
	var errs []string
	for _, x := range r.Results {
		if x.FirstErr != "" {
			errs = append(errs, fmt.Sprintf("%s, %d clients, %s, %s: %d errors; first: %s",
				x.Algorithm, x.Clients, x.Contention, nodesText(x.Nodes), x.Errors, x.FirstErr))
		}
	}
	if len(errs) > 0 {
		p("## Errors\n\n")
		for _, e := range errs {
			p("- %s\n", e)
		}
		p("\n")
	}
	p("## Charts\n\n")
	p("- [throughput.svg](throughput.svg): lock cycles per second against clients, a line per design\n")
	p("- [latency.svg](latency.svg): p50 and p99 acquire latency against clients (log scale)\n")
	p("- [cdf.svg](cdf.svg): distribution of acquire latency at the largest client count\n\n")
	p("![throughput](throughput.png)\n\n![latency](latency.png)\n\n![cdf](cdf.png)\n\n")
}

func (r *Report) underSummary(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("Each design ran once through the simulator (sim.Run) with the scenario's clients, nodes, hold, think time, " +
		"retry policy and faults. The figures are rebuilt from each run's history: a wait starts at a client's first " +
		"attempt after its previous cycle and ends with the lease; a cycle ends with the release's reply. " +
		"The histories are beside this file (history-<design>.jsonl).\n\n")
	p("| design | backend | nodes | clients | duration | cycles/s | attempts ok / refused / unknown | acquire p50 | p99 | max | cycle p99 | faults |\n")
	p("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n")
	for i, run := range r.Under.Runs {
		x := r.Results[i]
		var fs []string
		for _, f := range run.Faults {
			fs = append(fs, fmt.Sprintf("%s %.2f–%.2f s", f.Fault, f.StartS, f.EndS))
		}
		inc := ""
		if run.Incomplete {
			inc = " (incomplete)"
		}
		p("| %s%s | %s | %d | %d | %.1f s | %s | %d / %d / %d | %s | %s | %s | %s | %s |\n",
			run.Algorithm, inc, run.Backend, run.Nodes, run.Clients, run.DurationS, fmtRate(x.Throughput),
			run.Attempts.OK, run.Attempts.Fail, run.Attempts.Unknown,
			fmtLatency(x.Acquire.P50), fmtLatency(x.Acquire.P99), fmtLatency(x.Acquire.Max), fmtLatency(x.Cycle.P99),
			strings.Join(fs, "; "))
	}
	p("\n")
	for _, run := range r.Under.Runs {
		for _, n := range run.Notes {
			p("- %s: %s\n", run.Algorithm, n)
		}
	}
	p("\n![timeline](timeline.png)\n\n[timeline.svg](timeline.svg): acquire latency against time, fault windows shaded.\n\n")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
