package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/sim"
)

// Report is one exploration (or the merge of several shards), as
// explore.json and `locksim explore --json` give it.
type Report struct {
	Algorithm  string  `json:"algorithm"`
	Runs       int     `json:"runs"`
	RunsPerMin float64 `json:"runs_per_min"`
	// NotPlayed counts the runs that tested nothing (no lease granted):
	// neither safe nor violations.
	NotPlayed  int         `json:"not_played"`
	Violations []Violation `json:"violations"`

	Seed  uint64 `json:"seed"`
	Shard string `json:"shard"` // "i/n"; merged: the shards, comma-separated
	// Elapsed is the wall time in seconds (merged: the sum over shards).
	Elapsed     float64  `json:"elapsed_s"`
	Kinds       []string `json:"kinds"`
	Points      []string `json:"points"`
	World       World    `json:"world"`
	Interrupted bool     `json:"interrupted,omitempty"`
	// Reference is the design the violating schedules were run on too
	// ("" for none); Strict: every violation fails, not only the
	// candidate's own (Failing).
	Reference string `json:"reference,omitempty"`
	Strict    bool   `json:"strict,omitempty"`
	// Pending counts the violations found but not yet finished (shrunk,
	// written, replayed) when the file was written: explore.json is
	// written again as each one is done, so that an interruption or a
	// late failure keeps those before it. 0 in a finished exploration.
	Pending int `json:"pending,omitempty"`

	// Written is the directory Write last wrote into ("" until it has).
	Written string `json:"-"`
}

// World is what every schedule of an exploration shares.
type World struct {
	Clients   int    `json:"clients"`
	Nodes     int    `json:"nodes"`
	TTL       string `json:"ttl"`
	Duration  string `json:"duration"`
	Hold      string `json:"hold"`
	MaxFaults int    `json:"max_faults"`
}

// Violation is one distinct failure: the first schedule of its signature,
// shrunk, written and replayed.
type Violation struct {
	Check     string `json:"check"`
	Verdict   string `json:"verdict"`
	Signature string `json:"signature"`
	// Seed is the simulation seed of the schedule (and of the shrunk
	// scenario); Schedule its index j under the exploration's seed.
	Seed         uint64 `json:"seed"`
	Schedule     int    `json:"schedule"`
	FaultsBefore int    `json:"faults_before"`
	FaultsAfter  int    `json:"faults_after"`
	// Scenario is the path of the shrunk scenario's YAML.
	Scenario   string     `json:"scenario"`
	Reproduced Reproduced `json:"reproduced"`

	Hits       int     `json:"hits"`          // runs with this signature
	FoundAfter float64 `json:"found_after_s"` // wall seconds into the exploration
	FoundAtRun int     `json:"found_at_run"`
	// ShrunkSignature is the signature of the shrunk scenario's run (the
	// check and verdict are the same; the kinds may be fewer).
	ShrunkSignature string `json:"shrunk_signature,omitempty"`
	ShrinkSteps     int    `json:"shrink_steps,omitempty"`
	ShrinkTries     int    `json:"shrink_tries,omitempty"`
	// Dir is the run directory of the shrunk scenario; RunAsExpected
	// whether that run met its expect (what `locksim run` exits 0 on).
	Dir           string `json:"dir,omitempty"`
	RunAsExpected bool   `json:"run_as_expected"`
	Reason        string `json:"reason,omitempty"` // the checker's, for unknown
	Note          string `json:"note,omitempty"`
	// CoveredBy is the number (1-based) of an earlier violation whose
	// shrunk cause was active here too: the same check failed with the
	// same verdict while every fault kind of that shrunk scenario was at
	// work. Such a violation is counted, not shrunk again.
	CoveredBy int `json:"covered_by,omitempty"`
	// Strengthened is how many rounds of robustify (every fault's length
	// and size x1.5) the written scenario went through after shrinking,
	// because as shrunk it reproduced too rarely on redis-server.
	Strengthened int `json:"strengthened,omitempty"`
	// Known: the reference failed the same check on the schedule as
	// found (a weakness of the family); KnownWhy says which check and
	// why. ReferenceReproduced is how often the reference failed the
	// shrunk scenario of a violation it does not share ("k/K").
	Known               bool   `json:"known,omitempty"`
	KnownWhy            string `json:"known_why,omitempty"`
	ReferenceReproduced string `json:"reference_reproduced,omitempty"`
}

// Reproduced says how often the shrunk scenario failed the same check
// again: "k/K" in virtual time, and on redis-server in real time ("" when
// not confirmed there).
type Reproduced struct {
	Virtual string `json:"virtual"`
	Redis   string `json:"redis,omitempty"`
	// AsShrunk is how the scenario as shrunk reproduced, when it fell
	// short of the rule on redis-server and a strengthened version
	// (Violation.Strengthened) did better and was written instead; the
	// figures above are then the strengthened scenario's.
	AsShrunk *Reproduced `json:"as_shrunk,omitempty"`
}

// Write writes explore.json and summary.md into dir, each atomically.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	err := artifact.WriteFileAtomic(filepath.Join(dir, FileReport), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
	if err == nil {
		err = artifact.WriteFileAtomic(filepath.Join(dir, FileSummary), func(w io.Writer) error {
			_, err := io.WriteString(w, r.Markdown())
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	r.Written = dir
	return nil
}

// ReadReport reads the explore.json in dir.
func ReadReport(dir string) (*Report, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileReport))
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileReport), err)
	}
	if r.Algorithm == "" {
		return nil, fmt.Errorf("%s: no algorithm: not an exploration's report", filepath.Join(dir, FileReport))
	}
	if err := r.checkCounts(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileReport), err)
	}
	return &r, nil
}

// Merge folds the reports of several shards (or sessions) of explorations
// into one per design: runs and wall time add up, runs per minute is
// recomputed from them (shards run side by side, so it is per shard-minute),
// and violations with the same signature are one, the one with the best
// virtual reproduction (then the fewest faults) kept, hits summed.
func Merge(reports []*Report) []*Report {
	byAlgo := map[string]*Report{}
	var order []string
	for _, r := range reports {
		m := byAlgo[r.Algorithm]
		if m == nil {
			m = &Report{Algorithm: r.Algorithm, Seed: r.Seed, Kinds: r.Kinds, Points: r.Points, World: r.World, Violations: []Violation{},
				Reference: r.Reference, Strict: r.Strict}
			byAlgo[r.Algorithm] = m
			order = append(order, r.Algorithm)
		}
		m.Runs += r.Runs
		m.NotPlayed += r.NotPlayed
		m.Elapsed += r.Elapsed
		m.Interrupted = m.Interrupted || r.Interrupted
		m.Pending += r.Pending
		if m.Shard == "" {
			m.Shard = r.Shard
		} else {
			m.Shard += "," + r.Shard
		}
		for _, v := range r.Violations {
			i := -1
			for k := range m.Violations {
				if m.Violations[k].Signature == v.Signature {
					i = k
				}
			}
			if i < 0 {
				m.Violations = append(m.Violations, v)
				continue
			}
			hits := m.Violations[i].Hits + v.Hits
			if better(v, m.Violations[i]) {
				m.Violations[i] = v
			}
			m.Violations[i].Hits = hits
		}
	}
	out := make([]*Report, 0, len(order))
	for _, a := range order {
		m := byAlgo[a]
		if m.Elapsed > 0 {
			m.RunsPerMin = float64(m.Runs) / m.Elapsed * 60
		}
		sort.SliceStable(m.Violations, func(i, j int) bool { return m.Violations[i].Signature < m.Violations[j].Signature })
		out = append(out, m)
	}
	return out
}

// better: a higher virtual reproduction, then fewer faults, then the lower
// schedule.
func better(a, b Violation) bool {
	ra, rb := rate(a.Reproduced.Virtual), rate(b.Reproduced.Virtual)
	if ra != rb {
		return ra > rb
	}
	if a.FaultsAfter != b.FaultsAfter {
		return a.FaultsAfter < b.FaultsAfter
	}
	return a.Schedule < b.Schedule
}

func rate(kk string) float64 {
	var k, n int
	if _, err := fmt.Sscanf(kk, "%d/%d", &k, &n); err != nil || n == 0 {
		return -1
	}
	return float64(k) / float64(n)
}

// ErrNoReports: merge was given no exploration directory.
var ErrNoReports = errors.New("no exploration directories given")

// MergeDirs reads the explore.json of each directory and merges them.
func MergeDirs(dirs []string) ([]*Report, error) {
	if len(dirs) == 0 {
		return nil, ErrNoReports
	}
	var reps []*Report
	seen := map[string]string{}
	for _, d := range dirs {
		// One exploration given twice (or under two paths) would count
		// its runs twice.
		key := d
		if real, err := filepath.EvalSymlinks(d); err == nil {
			key = real
		}
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if first, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s and %s are the same exploration: given twice, its runs would count twice", first, d)
		}
		seen[key] = d
		r, err := ReadReport(d)
		if err != nil {
			return nil, err
		}
		reps = append(reps, r)
	}
	return Merge(reps), nil
}

// checkCounts refuses a report whose counts no exploration writes: a
// negative count, or more runs not played than runs.
func (r *Report) checkCounts() error {
	type count struct {
		name string
		n    float64
	}
	counts := []count{{"runs", float64(r.Runs)}, {"not_played", float64(r.NotPlayed)}, {"elapsed_s", r.Elapsed}, {"pending", float64(r.Pending)}}
	for i, v := range r.Violations {
		counts = append(counts,
			count{fmt.Sprintf("violations[%d].hits", i), float64(v.Hits)},
			count{fmt.Sprintf("violations[%d].faults_before", i), float64(v.FaultsBefore)},
			count{fmt.Sprintf("violations[%d].faults_after", i), float64(v.FaultsAfter)})
	}
	for _, c := range counts {
		if c.n < 0 {
			return fmt.Errorf("%s %v: must not be negative", c.name, c.n)
		}
	}
	if r.NotPlayed > r.Runs {
		return fmt.Errorf("not_played %d: more than its %d runs", r.NotPlayed, r.Runs)
	}
	return nil
}

// Line is one violation in one line, as the CLI prints it.
func (v Violation) Line() string {
	repro := "virtual " + orDash(v.Reproduced.Virtual)
	if v.Reproduced.Redis != "" {
		repro += ", redis " + v.Reproduced.Redis
	}
	if a := v.Reproduced.AsShrunk; a != nil {
		repro += fmt.Sprintf(" (strengthened x%d; as shrunk: virtual %s, redis %s)", v.Strengthened, orDash(a.Virtual), orDash(a.Redis))
	}
	where := v.Scenario
	if where == "" {
		where = fmt.Sprintf("schedule %d", v.Schedule)
	}
	return fmt.Sprintf("%-9s %-8s %d->%d faults  reproduced %s  %s  %s",
		v.Check, strings.ToUpper(v.Verdict), v.FaultsBefore, v.FaultsAfter, repro, v.Signature, where)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Markdown is summary.md: what was explored, and each violation with its
// reproduction rates and the shrunk scenario.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# locksim explore: %s\n\n", r.Algorithm)
	status := ""
	if r.Interrupted {
		status = " (interrupted: what was found until then, not shrunk after the interruption)"
	}
	if r.Pending > 0 {
		status += fmt.Sprintf(" (%d more violations found, not finished when this was written)", r.Pending)
	}
	fmt.Fprintf(&b, "%d runs in %.1f s of wall time, %.0f runs/min%s; seed %d, shard %s.\n\n",
		r.Runs, r.Elapsed, r.RunsPerMin, status, r.Seed, r.Shard)
	fmt.Fprintf(&b, "World: %d clients, %d nodes (one for single-master designs), ttl %s, %s simulated per run, hold %s, up to %d faults per schedule.\n\n",
		r.World.Clients, r.World.Nodes, r.World.TTL, r.World.Duration, r.World.Hold, r.World.MaxFaults)
	fmt.Fprintf(&b, "Fault kinds: %s.\n\nPoints: %s.\n\n", strings.Join(r.Kinds, ", "), strings.Join(r.Points, ", "))
	b.WriteString(workloadNote(r.Algorithm))
	if r.NotPlayed > 0 {
		fmt.Fprintf(&b, "%d of the %d runs tested nothing (their faults kept every client from a lease): not played, neither safe nor a violation.\n\n", r.NotPlayed, r.Runs)
	}
	b.WriteString(r.differentialMarkdown())
	if len(r.Violations) == 0 {
		b.WriteString("**No violation found.** Every other run was safe (or covered by fencing).\n")
		return b.String()
	}
	fmt.Fprintf(&b, "**%d distinct violations.** Reproduced: how often the shrunk scenario failed the same check in 10 reruns (seeds seed..seed+9), in virtual time and on redis-server in real time.\n\n", len(r.Violations))
	b.WriteString("| # | check | verdict | signature | hits | found after | faults | reproduced (virtual) | reproduced (redis) | scenario |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for i, v := range r.Violations {
		fmt.Fprintf(&b, "| %d | %s | %s | `%s` | %d | %.1f s (run %d) | %d -> %d | %s | %s | %s |\n",
			i+1, orDash(v.Check), v.Verdict, v.Signature, v.Hits, v.FoundAfter, v.FoundAtRun,
			v.FaultsBefore, v.FaultsAfter, orDash(v.Reproduced.Virtual), orDash(v.Reproduced.Redis), orDash(v.Scenario))
	}
	for i, v := range r.Violations {
		fmt.Fprintf(&b, "\n## %d. %s\n\n", i+1, v.Signature)
		fmt.Fprintf(&b, "- schedule %d (seed %d), %d runs with this signature, first after %.1f s\n", v.Schedule, v.Seed, v.Hits, v.FoundAfter)
		if v.ShrunkSignature != "" {
			fmt.Fprintf(&b, "- shrunk in %d steps (%d tries) to `%s`\n", v.ShrinkSteps, v.ShrinkTries, v.ShrunkSignature)
		}
		if a := v.Reproduced.AsShrunk; a != nil {
			fmt.Fprintf(&b, "- as shrunk it reproduced %s in virtual time and %s on redis-server; strengthened %d times (x%.1f each: the run, the hold and the faults, or the hold x4 and the run alone), it reproduced %s and %s\n",
				orDash(a.Virtual), orDash(a.Redis), v.Strengthened, strength, orDash(v.Reproduced.Virtual), orDash(v.Reproduced.Redis))
		}
		if v.Note != "" {
			fmt.Fprintf(&b, "- %s\n", v.Note)
		}
		if v.Reason != "" {
			fmt.Fprintf(&b, "- checker: %s\n", v.Reason)
		}
		if v.Dir != "" {
			fmt.Fprintf(&b, "- run directory: %s (as expected: %v)\n", v.Dir, v.RunAsExpected)
		}
		if v.Scenario != "" {
			fmt.Fprintf(&b, "- replay: `locksim run %s`\n", v.Scenario)
			if data, err := os.ReadFile(v.Scenario); err == nil {
				fmt.Fprintf(&b, "\n```yaml\n%s```\n", data)
			}
		}
	}
	return b.String()
}
