package explore

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/locksim/locksim/internal/shard"
)

// Part is one shard (or session) of a merged exploration as it ran: what
// the merged report sums, kept per machine.
type Part struct {
	Shard      string  `json:"shard"`
	Seed       uint64  `json:"seed"`
	Version    string  `json:"version,omitempty"`
	Machine    string  `json:"machine,omitempty"`
	Runs       int     `json:"runs"`
	NotPlayed  int     `json:"not_played"`
	Elapsed    float64 `json:"elapsed_s"`
	RunsPerMin float64 `json:"runs_per_min"`
	Violations int     `json:"violations"`
}

// Sighting is one shard's find of a signature: its most promising
// schedule, that schedule's seed, and how many of the shard's runs had it.
type Sighting struct {
	Shard    string `json:"shard"`
	Schedule int    `json:"schedule"`
	Seed     uint64 `json:"seed"`
	Hits     int    `json:"hits"`
}

// ErrMerge marks reports that cannot be merged into one: shards of
// different builds or configurations, a shard given twice, shards
// missing. Its message is one line.
var ErrMerge = errors.New("explore merge")

func mergeErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMerge, fmt.Sprintf(format, args...))
}

// where names a report in an error: its directory, else its shard.
func where(r *Report) string {
	if r.Written != "" {
		return r.Written
	}
	return "shard " + r.Shard
}

// differs names the first field in which b's exploration differs from
// a's, with both values; "" when they can be merged. Shards of one
// exploration (n > 1) must share everything, the seed too; sessions (each
// 0/1) may differ in their seed and runs, which then add up.
func differs(a, b *Report, sharded bool) string {
	fields := []struct{ name, a, b string }{
		{"version", a.Version, b.Version},
		{"kinds", strings.Join(a.Kinds, ","), strings.Join(b.Kinds, ",")},
		{"world", fmt.Sprintf("%+v", a.World), fmt.Sprintf("%+v", b.World)},
		{"reference", a.Reference, b.Reference},
		{"strict", fmt.Sprint(a.Strict), fmt.Sprint(b.Strict)},
		{"unguided", fmt.Sprint(a.Unguided), fmt.Sprint(b.Unguided)},
		{"exhaustive", fmt.Sprint(a.Exhaustive), fmt.Sprint(b.Exhaustive)},
	}
	if sharded {
		fields = append(fields,
			struct{ name, a, b string }{"seed", fmt.Sprint(a.Seed), fmt.Sprint(b.Seed)},
			struct{ name, a, b string }{"planned_runs", fmt.Sprint(a.Planned), fmt.Sprint(b.Planned)})
	}
	for _, f := range fields {
		if f.a != f.b {
			return fmt.Sprintf("%s %q in %s, %q in %s", f.name, f.a, where(a), f.b, where(b))
		}
	}
	return ""
}

// checkMerge refuses reports of one design that are not one exploration:
// a report of n > 1 shards must come with the n-1 others, each once, all
// of one build and configuration ("shard 3/8 missing" rather than a
// summary of fewer); reports that are each whole (0/1) are sessions, of
// one build and configuration but any seed.
func checkMerge(reports []*Report) error {
	byAlgo := map[string][]*Report{}
	var order []string
	for _, r := range reports {
		if byAlgo[r.Algorithm] == nil {
			order = append(order, r.Algorithm)
		}
		byAlgo[r.Algorithm] = append(byAlgo[r.Algorithm], r)
	}
	for _, a := range order {
		rs := byAlgo[a]
		var shards []shard.Shard
		count := 0
		for _, r := range rs {
			s, err := shard.Parse(orDefault(r.Shard, "0/1"))
			if err != nil || strings.Contains(r.Shard, ",") {
				return mergeErr("%s: %s: shard %q is not one shard i/n (a merged report is not merged again; merge its shards)", a, where(r), r.Shard)
			}
			count = max(count, s.Count)
			shards = append(shards, s)
		}
		sharded := count > 1
		for i, r := range rs {
			if shards[i].Count != shards[0].Count {
				return mergeErr("%s: shard count %d in %s, %d in %s", a, shards[0].Count, where(rs[0]), shards[i].Count, where(r))
			}
			if d := differs(rs[0], r, sharded); d != "" {
				return mergeErr("%s: not shards of one exploration: %s", a, d)
			}
			for k := range i {
				if sharded && shards[k] == shards[i] {
					return mergeErr("%s: shard %s given twice: %s and %s", a, shards[i], where(rs[k]), where(r))
				}
			}
		}
		if !sharded {
			continue
		}
		if missing := shard.Missing(shards, count); len(missing) > 0 {
			return mergeErr("%s: %s (have %d of %d shards)", a, strings.Join(missing, ", "), len(rs), count)
		}
	}
	return nil
}

// partOf is r as one part of a merged report.
func partOf(r *Report) Part {
	return Part{Shard: r.Shard, Seed: r.Seed, Version: r.Version, Machine: r.Machine, Runs: r.Runs, NotPlayed: r.NotPlayed,
		Elapsed: r.Elapsed, RunsPerMin: r.RunsPerMin, Violations: len(r.Violations)}
}

// sortSightings orders a violation's sightings by shard.
func sortSightings(ss []Sighting) {
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].Shard < ss[b].Shard })
}

// partsMarkdown is summary.md's table of a merged report's shards: each
// one's seed, build, machine and figures ("" for a report not merged).
func (r *Report) partsMarkdown() string {
	if len(r.Parts) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Merged from %d shards:\n\n| shard | seed | locksim | machine | runs | not played | wall s | runs/min | signatures |\n|---|---|---|---|---|---|---|---|---|\n", len(r.Parts))
	for _, p := range r.Parts {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %d | %.1f | %.0f | %d |\n",
			p.Shard, p.Seed, orDash(p.Version), orDash(p.Machine), p.Runs, p.NotPlayed, p.Elapsed, p.RunsPerMin, p.Violations)
	}
	b.WriteString("\n")
	return b.String()
}

// keeps reports whether a merge keeps v, of a report of shard sh, over w
// for their signature. Of the shards of one exploration, the one the
// unsharded exploration would have shrunk: the most promising schedule
// as found (the fewest faults, then the lowest index; every schedule of
// a random draw has the exploration's duration), so that the merged
// causes are the unsharded ones. Of sessions (each 0/1, other seeds),
// the best reproduced (better).
func keeps(v, w Violation, sh string) bool {
	if s, err := shard.Parse(sh); err == nil && s.Count > 1 {
		if v.FaultsBefore != w.FaultsBefore {
			return v.FaultsBefore < w.FaultsBefore
		}
		return v.Schedule < w.Schedule
	}
	return better(v, w)
}
