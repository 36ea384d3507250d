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

// fmtSpread renders a ratio with its rounds' range.
func fmtSpread(v float64, s Spread) string {
	if v == 0 {
		return "–"
	}
	if s.Rounds < 2 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", v, s.Min, s.Max)
}

func fmtAllocs(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
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

// Summary is summary.md: Doc as Markdown.
func (r *Report) Summary() string { return r.Doc().Markdown(1, nil) }

// Doc is what the run's summary says: how the run was made, the headline
// ratios and the tables (or, under a scenario, each design's run), the
// charts. summary.md and the review page both show it.
func (r *Report) Doc() Doc {
	d := Doc{Title: "lockbench"}
	if r.Under != nil {
		d.Title = fmt.Sprintf("lockbench under scenario %q", r.Under.Scenario)
	}
	d.Facts = append(d.Facts,
		Wordsf("Started: %s (UTC), wall time %.1f s", r.Started.UTC().Format("2006-01-02 15:04:05"), r.WallS),
		Wordsf("Machine: %s (GOMAXPROCS %d), %s", r.Machine, r.Machine.GOMAXPROCS, r.Machine.Go),
		Wordsf("Backend: %s, nodes started by the harness on loopback", r.Backend))
	if r.Command != "" {
		d.Facts = append(d.Facts, Words("Command: ").Then(Code, r.Command))
	}
	if r.Under != nil {
		d.Sections = append(d.Sections, r.underSections()...)
	} else {
		d.Sections = append(d.Sections, r.sweepSections()...)
	}
	if len(r.Notes) > 0 {
		notes := Section{Title: "Notes"}
		for _, n := range r.Notes {
			notes.Items = append(notes.Items, Words(n))
		}
		d.Sections = append(d.Sections, notes)
	}
	return d
}

// SweepCharts are a sweep's charts, as the summary lists them.
var SweepCharts = []Chart{
	{ChartThroughput, "lock cycles per second against clients, a line per design"},
	{ChartLatency, "p50 and p99 acquire latency against clients (log scale)"},
	{ChartCDF, "distribution of acquire latency at the largest client count"},
}

// UnderCharts are the charts of a run under a scenario.
var UnderCharts = []Chart{{ChartTimeline, "acquire latency and refused attempts against time, fault windows (and Sentinel's failover) shaded"}}

func (r *Report) sweepSections() []Section {
	s := r.Settings
	how := Section{Title: "How it was measured", Items: []Text{
		Wordsf("Each configuration was measured for %s in %d rounds. The designs that share a cell (clients, nodes, contention) "+
			"ran interleaved in the same process, the order rotated every round, each after an unmeasured warm-up of %s; "+
			"so ratios within a cell compare designs under the same conditions, and the per-round range shows how much the machine moved.",
			fmtDur(s.DurationS*1000), s.Rounds, fmtDur(s.WarmupS*1000)),
		Wordsf("One cycle: a blocking acquire, hold %s, release. The blocking acquire is lock.Blocking for every design "+
			"(and the same loop for raw): one attempt; a refused attempt counts as a failed acquire and is retried after ", fmtDur(s.HoldMs)).
			Then(Bold, fmt.Sprintf("%s plus up to %s of jitter", fmtDur(s.RetryMs), fmtDur(s.RetryJitterMs))).
			Then(Plain, fmt.Sprintf(" (the bench's small retry interval; the designs' default of 50 ms would measure sleep). Lock TTL %s.", fmtDur(s.TTLMs))),
		Words("Acquire latency runs from the first attempt to the lease (retries included); cycle latency to the release's reply. " +
			"HDR histograms, 3 significant digits. Errors are unknown outcomes (timeouts) and failed releases."),
		Text{}.Then(Code, "raw").Then(Plain, " is the raw limit, measured at every cluster size: a bare go-redis loop of SET NX PX and EVALSHA of the compare-and-delete script, "+
			"with the same go-redis client settings, one client per bench client, the same keys, tokens and retry wait, and no lock package. "+
			"At one node it is the single-instance loop; at N nodes it sends each command to every node in parallel and counts a majority "+
			"(a refused round gives back what a minority took), which is Redlock's work without its lease, clock, validity or per-round timeout. "+
			"It sends each command under the run's context (go-redis's 1 s read timeout bounds it), as the single-node designs do "+
			"when no node timeout is set; multi-node designs bound each round with context.WithTimeout(node timeout)."),
		Words("Every bench client has its own go-redis client per node, as separate processes would. Single-node designs and raw use one node; " +
			"multi-node designs every node of their size."),
		Words("×raw: cycles/s over raw's at the same nodes, clients and contention; ×peer: over the peer's (redislock for single-node designs, " +
			"redsync for multi-node ones) at the same cell. Every ratio is the median of the per-round ratios (in each round the two ran back to back), " +
			"the lowest and highest round beside it."),
		Words("allocs/cycle and CPU/cycle are this process's heap allocations (runtime/metrics) and CPU time (getrusage, user + system) " +
			"over a design's measured rounds, per completed cycle: the client side's cost, the harness's loop included alike for every design. " +
			"redis-server's own CPU is not in it; on miniredis the nodes run in this process and are."),
	}}
	how.Items = append(how.Items, Words("of limit: cycles/s over the server's cycle limit at the same client count, 1/(1/SET + 1/EVALSHA), "+
		"where SET is SET NX PX and EVALSHA the compare-and-delete script per second that one node served to a pipelined loop ("+
		fmt.Sprint(limitPipeline)+" commands per round trip, every client a connection of its own) measured in the same run before every cell, the median of those at the same client count. "+
		"A multi-node design's cycle is one of each on every node, in parallel, so its fraction is against one node's limit too."))
	if s.Rounds < MinRepeats {
		how.Items = append(how.Items, Wordsf("Only %d round(s) per configuration: the ratios below have no spread to judge the noise by (use --rounds %d or more).", s.Rounds, MinRepeats))
	}
	out := []Section{how}

	if len(r.Comparisons) > 0 {
		out = append(out, r.headlineSection())
	}
	if len(r.Limits) > 0 {
		t := &Table{Head: []string{"clients", "SET NX PX/s", "EVALSHA/s", "cycle limit/s"}, Right: []bool{true, true, true, true}}
		for _, l := range r.Limits {
			t.Rows = append(t.Rows, []Text{Wordsf("%d", l.Clients), Words(fmtRate(l.SetPerS)), Words(fmtRate(l.EvalShaPerS)), Words(fmtRate(l.CyclePerS))})
		}
		out = append(out, Section{Title: "The server's limit", Table: t})
	}
	for _, m := range r.contentions() {
		t := &Table{
			Head: []string{"design", "nodes", "clients", "cycles/s", "×raw (rounds)", "×peer (rounds)", "of limit", "allocs/cycle", "CPU/cycle",
				"failed acquires/s", "errors", "acquire p50", "p90", "p99", "p99.9", "max", "cycle p50", "p99", "p99.9"},
			Right: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true},
		}
		for _, x := range r.Results {
			if x.Contention != m {
				continue
			}
			name := Words(x.Algorithm)
			switch x.Kind {
			case KindRaw:
				name = Text{}.Then(Bold, "raw")
			case KindPeer:
				name = Words(x.Algorithm + " (peer)")
			}
			refused := 0.0
			if x.Seconds > 0 {
				refused = float64(x.Refused) / x.Seconds
			}
			t.Rows = append(t.Rows, []Text{name, Wordsf("%d", x.Nodes), Wordsf("%d", x.Clients),
				Words(fmtRate(x.Throughput)), Words(fmtSpread(x.VsRaw, x.VsRawRounds)), Words(fmtSpread(x.VsPeer, x.VsPeerRounds)),
				Words(FmtLimit(x.VsLimit)), Words(fmtAllocs(x.AllocsPerCycle)), Words(fmtLatency(x.CPUPerCycleUs)),
				Words(fmtRate(refused)), Wordsf("%d", x.Errors),
				Words(fmtLatency(x.Acquire.P50)), Words(fmtLatency(x.Acquire.P90)), Words(fmtLatency(x.Acquire.P99)),
				Words(fmtLatency(x.Acquire.P999)), Words(fmtLatency(x.Acquire.Max)),
				Words(fmtLatency(x.Cycle.P50)), Words(fmtLatency(x.Cycle.P99)), Words(fmtLatency(x.Cycle.P999))})
		}
		out = append(out, Section{Title: upperFirst(contentionTitle(m)), Table: t})
	}
	errs := Section{Title: "Errors"}
	for _, x := range r.Results {
		if x.FirstErr != "" {
			errs.Items = append(errs.Items, Wordsf("%s, %d clients, %s, %s: %d errors; first: %s",
				x.Algorithm, x.Clients, x.Contention, nodesText(x.Nodes), x.Errors, x.FirstErr))
		}
	}
	if len(errs.Items) > 0 {
		out = append(out, errs)
	}
	return append(out, Section{Title: "Charts", Charts: SweepCharts})
}

// headlineSection is the headline ratios, each a median of rounds with its
// spread, whether the difference is inside the noise, and the goal.
func (r *Report) headlineSection() Section {
	head := Section{Title: "Headline ratios", Paras: []Text{Words("Ratios are design / reference from this run: the median of the per-round ratios " +
		"(the two ran back to back in each round), the lowest and highest round beside it. Throughput above 1 and latency below 1 favour the design. " +
		"A ratio whose rounds fall on both sides of 1.00 is a difference inside the noise.")}}
	t := &Table{
		Head:  []string{"comparison", "clients", "contention", "throughput", "rounds (min–max)", "noise", "acquire p99", "cycle p99", "goal", "met"},
		Right: []bool{false, true, false, true, false, false, true, true},
	}
	for _, c := range r.Comparisons {
		met := "–"
		switch {
		case c.Goal == "":
		case c.Met && c.Rounds >= MinRepeats && c.RoundMin >= goalValue(c.Goal):
			met = "yes, every round"
		case c.Met:
			met = "median only: inside the noise"
		default:
			met = "no"
		}
		goal := c.Goal
		if goal == "" {
			goal = "for reference"
		}
		t.Rows = append(t.Rows, []Text{Words(c.Title), Wordsf("%d", c.Clients), Words(string(c.Contention)),
			Wordsf("%.3f", c.Throughput), Wordsf("%.2f–%.2f (%d)", c.RoundMin, c.RoundMax, c.Rounds), Words(c.Noise),
			Wordsf("%.2f", c.AcquireP99), Wordsf("%.2f", c.CycleP99), Words(goal), Words(met)})
	}
	head.Table = t
	if missed := r.missedGoals(); len(missed) > 0 {
		head.Items = append(head.Items, Words("Goals missed: "+strings.Join(missed, "; ")+"."))
	}
	return head
}

// missedGoals names the headline comparisons whose median missed the goal,
// saying when the goal lies inside the rounds' range.
func (r *Report) missedGoals() []string {
	var out []string
	for _, c := range r.Comparisons {
		if c.Goal == "" || c.Met {
			continue
		}
		s := fmt.Sprintf("%s at %d clients %s: %.2f", c.Title, c.Clients, c.Contention, c.Throughput)
		if sp := (Spread{Median: c.Throughput, Min: c.RoundMin, Max: c.RoundMax, Rounds: c.Rounds}); sp.Rounds >= MinRepeats && goalValue(c.Goal) > 0 && sp.Contains(goalValue(c.Goal)) {
			s += " (the goal lies inside its rounds' range)"
		}
		out = append(out, s)
	}
	return out
}

// goalValue reads the number of a goal such as "throughput >= 0.95 x raw".
func goalValue(goal string) float64 {
	var v float64
	if _, err := fmt.Sscanf(goal, "throughput >= %g", &v); err != nil {
		return 0
	}
	return v
}

func (r *Report) underSections() []Section {
	s := Section{Paras: []Text{Words("Each design ran once through the simulator (sim.Run) with the scenario's clients, nodes, hold, think time, " +
		"retry policy and faults. The figures are rebuilt from each run's history: a wait starts at a client's first " +
		"attempt after its previous cycle and ends with the lease; a cycle ends with the release's reply. " +
		"The histories are beside this file (history-<design>.jsonl).")}}
	t := &Table{
		Head: []string{"design", "backend", "nodes", "clients", "duration", "cycles/s", "attempts ok / refused / unknown",
			"acquire p50", "p99", "max", "cycle p99", "faults"},
		Right: []bool{false, false, true, true, true, true, false, true, true, true, true},
	}
	for i, run := range r.Under.Runs {
		var x Result
		if i < len(r.Results) {
			x = r.Results[i]
		}
		var fs []string
		for _, f := range run.Faults {
			fs = append(fs, fmt.Sprintf("%s %.2f–%.2f s", f.Fault, f.StartS, f.EndS))
		}
		name := run.Algorithm
		if run.Incomplete {
			name += " (incomplete)"
		}
		t.Rows = append(t.Rows, []Text{Words(name), Words(run.Backend), Wordsf("%d", run.Nodes), Wordsf("%d", run.Clients),
			Wordsf("%.1f s", run.DurationS), Words(fmtRate(x.Throughput)),
			Wordsf("%d / %d / %d", run.Attempts.OK, run.Attempts.Fail, run.Attempts.Unknown),
			Words(fmtLatency(x.Acquire.P50)), Words(fmtLatency(x.Acquire.P99)), Words(fmtLatency(x.Acquire.Max)),
			Words(fmtLatency(x.Cycle.P99)), Words(strings.Join(fs, "; "))})
		for _, n := range run.Notes {
			s.Items = append(s.Items, Wordsf("%s: %s", run.Algorithm, n))
		}
		var sw []string
		for _, w := range run.Sentinel {
			sw = append(sw, fmt.Sprintf("%s %.2f–%.2f s", w.Fault, w.StartS, w.EndS))
		}
		if len(sw) > 0 {
			s.Items = append(s.Items, Wordsf("%s: Sentinel's failover (from the sentinels' events, shaded on the chart): %s",
				run.Algorithm, strings.Join(sw, "; ")))
		}
	}
	s.Table = t
	s.Charts = UnderCharts
	return []Section{s}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// FmtLimit is a fraction of the server's cycle limit, "0.42"; "–" when
// the limit was not measured.
func FmtLimit(f float64) string {
	if f <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", f)
}
