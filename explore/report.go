package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	NotPlayed int `json:"not_played"`
	// Causes group the violations by shrunk cause (causesOf), most
	// signatures first; Violations are the signatures, each with its
	// cause or why it has none (Violation.Unshrunk).
	Causes     []Cause     `json:"causes"`
	Violations []Violation `json:"violations"`
	// Budget is how the exploration's wall time was split (Plan), in
	// seconds; absent when nothing bounded it but its runs.
	Budget *BudgetSplit `json:"budget,omitempty"`

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
	// Coverage is which (point, fault kind) pairs the runs reached; Sweep
	// the bounded sweep's tiers and statement (Config.Exhaustive only).
	Coverage *Coverage `json:"coverage,omitempty"`
	Sweep    *Sweep    `json:"sweep,omitempty"`
	// Version is the locksim that explored (internal/version), Machine
	// where; Planned the runs asked for over all shards (--runs, 0 when
	// bounded by time), Unguided and Exhaustive how schedules were
	// drawn: with the fields above, what the shards of one exploration
	// share (merge.go). Parts, in a merged report, is each shard's own.
	Version    string `json:"version,omitempty"`
	Machine    string `json:"machine,omitempty"`
	Planned    int    `json:"planned_runs,omitempty"`
	Unguided   bool   `json:"unguided,omitempty"`
	Exhaustive bool   `json:"exhaustive,omitempty"`
	Parts      []Part `json:"parts,omitempty"`

	// Written is the directory Write last wrote into ("" until it has).
	Written string `json:"-"`
}

// BudgetSplit is a Plan in seconds from the start, as explore.json says it.
type BudgetSplit struct {
	Search float64 `json:"search_s,omitempty"`
	Finish float64 `json:"finish_s,omitempty"`
	Total  float64 `json:"total_s,omitempty"`
}

func budgetOf(p Plan) *BudgetSplit {
	if p == (Plan{}) {
		return nil
	}
	return &BudgetSplit{Search: p.Search.Seconds(), Finish: p.Finish.Seconds(), Total: p.Total.Seconds()}
}

// Why a violation was not shrunk (Violation.Unshrunk), and why a shrunk
// one was not confirmed (Violation.Unconfirmed).
const (
	UnshrunkBudget      = "budget"      // the budget for shrinking (or confirming) ended first
	UnshrunkInterrupted = "interrupted" // the exploration was interrupted first
	UnshrunkMax         = "max-shrink"  // past MaxShrink shrunk violations
	UnshrunkNoShrink    = "no-shrink"   // NoShrink
	UnshrunkRule        = "rule"        // its run as a scenario did not fail the check again
	UnshrunkError       = "error"       // shrinking could not run it
	UnshrunkKnown       = "known"       // the reference fails it too (shrunk only with Strict)
)

// World is what every schedule of an exploration shares.
type World struct {
	Clients   int    `json:"clients"`
	Nodes     int    `json:"nodes"`
	TTL       string `json:"ttl"`
	Duration  string `json:"duration"`
	Hold      string `json:"hold"`
	MaxFaults int    `json:"max_faults"`
}

// Violation is one distinct failure (a signature): its most promising
// schedule (the fewest faults, then the shortest run, then the lowest
// index), shrunk, written and replayed.
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
	// Cause is the shrunk cause (causeOf) of this violation, or of the one
	// that covers it; "" when it was not shrunk (Unshrunk says why).
	Cause string `json:"cause,omitempty"`
	// Unshrunk says why a violation that no other covers was not shrunk:
	// one of the Unshrunk constants; "" when it was shrunk or covered.
	Unshrunk string `json:"unshrunk,omitempty"`
	// CutShort: the budget ended during its shrinking; the scenario meets
	// the rule, a smaller one may too.
	CutShort bool `json:"cut_short,omitempty"`
	// Unconfirmed is UnshrunkBudget when the budget ended before its
	// replays (virtual, or on redis-server with Confirm) were done.
	Unconfirmed string `json:"unconfirmed,omitempty"`
	// Replay is how to replay the written scenario: `locksim run FILE`
	// for a design built into locksim; explore.Replay in a go test of the
	// program that registers any other.
	Replay string `json:"replay,omitempty"`
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
	// Sightings, in a merged report, are the shards that met this
	// signature, each with its most promising schedule, seed and hits.
	Sightings []Sighting `json:"sightings,omitempty"`
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
// and violations with the same signature are one (keeps: of shards, the
// one the unsharded exploration would have shrunk; of sessions, the best
// reproduced), hits summed, every
// shard's find of it kept as a Sighting and every shard's own figures as
// a Part; the causes are grouped again over the merged violations, so a
// cause two shards found is one. Reports that are not one exploration
// (checkMerge: other builds or configurations, missing shards) are
// refused with ErrMerge.
func Merge(reports []*Report) ([]*Report, error) {
	if err := checkMerge(reports); err != nil {
		return nil, err
	}
	byAlgo := map[string]*Report{}
	var order []string
	coverer := map[string]string{} // design and signature: the signature that covers it
	for _, r := range reports {
		m := byAlgo[r.Algorithm]
		if m == nil {
			m = &Report{Algorithm: r.Algorithm, Seed: r.Seed, Kinds: r.Kinds, Points: r.Points, World: r.World, Violations: []Violation{},
				Reference: r.Reference, Strict: r.Strict,
				Version: r.Version, Planned: r.Planned, Unguided: r.Unguided, Exhaustive: r.Exhaustive}
			byAlgo[r.Algorithm] = m
			order = append(order, r.Algorithm)
		}
		m.Runs += r.Runs
		m.NotPlayed += r.NotPlayed
		m.Elapsed += r.Elapsed
		m.Interrupted = m.Interrupted || r.Interrupted
		m.Pending += r.Pending
		m.Coverage, m.Sweep = m.Coverage.merge(r.Coverage), m.Sweep.merge(r.Sweep, r.Algorithm)
		m.Parts = append(m.Parts, partOf(r))
		if m.Machine == "" || m.Machine == r.Machine {
			m.Machine = r.Machine
		} else {
			m.Machine = "several (see parts)"
		}
		if m.Shard == "" {
			m.Shard = r.Shard
		} else {
			m.Shard += "," + r.Shard
		}
		for _, v := range r.Violations {
			seen := Sighting{Shard: r.Shard, Schedule: v.Schedule, Seed: v.Seed, Hits: v.Hits}
			if len(v.Sightings) == 0 {
				v.Sightings = []Sighting{seen}
			}
			if v.CoveredBy > 0 && v.CoveredBy <= len(r.Violations) {
				coverer[r.Algorithm+"\x00"+v.Signature] = r.Violations[v.CoveredBy-1].Signature
			}
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
			sightings := append(m.Violations[i].Sightings, v.Sightings...)
			if keeps(v, m.Violations[i], r.Shard) {
				m.Violations[i] = v
			}
			m.Violations[i].Hits = hits
			m.Violations[i].Sightings = sightings
		}
	}
	out := make([]*Report, 0, len(order))
	for _, a := range order {
		m := byAlgo[a]
		if m.Elapsed > 0 {
			m.RunsPerMin = float64(m.Runs) / m.Elapsed * 60
		}
		sort.SliceStable(m.Violations, func(i, j int) bool { return m.Violations[i].Signature < m.Violations[j].Signature })
		// A violation is numbered by its place: a covered one points at
		// its coverer's place in the merged list.
		for i, v := range m.Violations {
			if v.CoveredBy == 0 {
				continue
			}
			m.Violations[i].CoveredBy = 1 + slices.IndexFunc(m.Violations, func(w Violation) bool {
				return w.Signature == coverer[a+"\x00"+v.Signature]
			})
		}
		for i := range m.Violations {
			sortSightings(m.Violations[i].Sightings)
		}
		m.Causes = causesOf(m.Violations)
		out = append(out, m)
	}
	return out, nil
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
		r.Written = d
		reps = append(reps, r)
	}
	return Merge(reps)
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
	return r.Sweep.check()
}

// Line is one violation in one line.
func (v Violation) Line() string {
	where := v.Scenario
	if where == "" {
		where = fmt.Sprintf("schedule %d", v.Schedule)
	}
	return fmt.Sprintf("%-9s %-8s %d->%d faults  reproduced %s  %s  %s",
		v.Check, strings.ToUpper(v.Verdict), v.FaultsBefore, v.FaultsAfter, reproLine(v.Reproduced, v.Strengthened), v.Signature, where)
}

// reproLine says a reproduction in a few words.
func reproLine(r Reproduced, strengthened int) string {
	repro := "virtual " + orDash(r.Virtual)
	if r.Redis != "" {
		repro += ", redis " + r.Redis
	}
	if a := r.AsShrunk; a != nil {
		repro += fmt.Sprintf(" (strengthened x%d; as shrunk: virtual %s, redis %s)", strengthened, orDash(a.Virtual), orDash(a.Redis))
	}
	return repro
}

// Line is one cause in one line, as the CLI prints it: the check, the
// verdict, the shrunk scenario's fault count, its reproduction, the
// cause, how many signatures and runs it explains, and its file.
func (c Cause) Line() string {
	faults := "1 fault "
	if c.FaultCount != 1 {
		faults = fmt.Sprintf("%d faults", c.FaultCount)
	}
	where := orDash(c.Scenario)
	known := ""
	if c.Known {
		known = "  (reference fails it too)"
	}
	return fmt.Sprintf("%-9s %-8s %s  %s  %s  (%s, %s)  %s%s",
		orDash(c.Check), strings.ToUpper(c.Verdict), faults, reproLine(c.Reproduced, 0), c.Faults,
		plural(len(c.Violations), "signature"), plural(c.Hits, "run"), where, known)
}

// maxCauseLines bounds the causes Lines prints; the rest are counted.
const maxCauseLines = 12

// Lines is the report's few lines for a terminal: one per cause (at most
// maxCauseLines), then the signatures these causes cover, then the
// violations left without a cause, counted by why, and how to replay a
// file.
func (r *Report) Lines() []string {
	causes := r.Causes
	if causes == nil {
		causes = causesOf(r.Violations)
	}
	var out []string
	explained := 0
	for i, c := range causes {
		explained += len(c.Violations)
		if i < maxCauseLines {
			out = append(out, c.Line())
		}
	}
	if n := len(causes) - maxCauseLines; n > 0 {
		out = append(out, fmt.Sprintf("+%d more causes (summary.md)", n))
	}
	if n := explained - len(causes); n > 0 {
		out = append(out, fmt.Sprintf("+%s covered by these causes", plural(n, "signature")))
	}
	counts := unshrunkCounts(r.Violations)
	for _, why := range unshrunkOrder {
		if n := counts[why]; n > 0 {
			out = append(out, fmt.Sprintf("+%d %s", n, unshrunkWhy[why]))
		}
	}
	for _, c := range causes {
		if c.Replay != "" {
			line := "replay: " + strings.Replace(c.Replay, c.Scenario, "FILE", 1)
			if where := replayWhere(r.Algorithm); where != "" {
				line += " " + where
			}
			out = append(out, line)
			break
		}
	}
	return out
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// signatureNotation explains the signatures of summary.md's long list.
const signatureNotation = `A signature is how a violating run was first sorted: "CHECK VERDICT [KINDS]",
the check that failed, its verdict, and the fault kinds active at its
witness (the overlap or the stale lease the checker reported): ` + "`claim unsafe [kill-node pause-client]`" + `.
` + "`[]`" + ` means no fault was active at the witness: the fault that caused it had
ended before (a pause that let a lease expire), or the failure needs no
fault at all; liveness and unknown verdicts have no witness and always read
` + "`[]`" + `. One cause shows up under many signatures, since whatever else a
schedule threw in is active at the witness too; so each signature's most
promising run (the fewest faults, then the shortest run) is shrunk, and a
signature whose failure an earlier shrunk cause was at work in is covered
by it (not shrunk again: "covered" below, its faults column unchanged,
reproduced "-").
`

// Markdown is summary.md: what was explored, the causes, then each
// signature with its reproduction rates and its scenario.
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
	b.WriteString(r.partsMarkdown())
	if bs := r.Budget; bs != nil && bs.Total > 0 {
		fmt.Fprintf(&b, "Budget: %.0f s in all: search until %.1f s, shrinking and confirmation until %.1f s, then the last replays and run directories.\n\n",
			bs.Total, bs.Search, bs.Finish)
	}
	fmt.Fprintf(&b, "World: %d clients, %d nodes (one for single-master designs), ttl %s, %s simulated per run, hold %s, up to %d faults per schedule.\n\n",
		r.World.Clients, r.World.Nodes, r.World.TTL, r.World.Duration, r.World.Hold, r.World.MaxFaults)
	fmt.Fprintf(&b, "Fault kinds: %s.\n\nPoints: %s.\n\n", strings.Join(r.Kinds, ", "), strings.Join(r.Points, ", "))
	b.WriteString(workloadNote(r.Algorithm))
	if r.NotPlayed > 0 {
		fmt.Fprintf(&b, "%d of the %d runs tested nothing (their faults kept every client from a lease): not played, neither safe nor a violation.\n\n", r.NotPlayed, r.Runs)
	}
	b.WriteString(r.Sweep.markdown() + r.Coverage.markdown() + r.differentialMarkdown())
	if len(r.Violations) == 0 {
		b.WriteString("**No violation found.** Every other run was safe (or covered by fencing).\n")
		return b.String()
	}
	r.writeCauses(&b)
	b.WriteString("## Signatures\n\n")
	b.WriteString(signatureNotation)
	fmt.Fprintf(&b, "\n**%s.** Reproduced: how often the shrunk scenario failed the same check in 10 reruns (seeds seed..seed+9), in virtual time and on redis-server in real time.\n\n", plural(len(r.Violations), "signature"))
	b.WriteString("| # | check | verdict | signature | status | hits | found after | faults | reproduced (virtual) | reproduced (redis) | scenario |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, v := range r.Violations {
		fmt.Fprintf(&b, "| %d | %s | %s | `%s` | %s | %d | %.1f s (run %d) | %d -> %d | %s | %s | %s |\n",
			i+1, orDash(v.Check), v.Verdict, v.Signature, v.status(), v.Hits, v.FoundAfter, v.FoundAtRun,
			v.FaultsBefore, v.FaultsAfter, orDash(v.Reproduced.Virtual), orDash(v.Reproduced.Redis), orDash(v.Scenario))
	}
	for i, v := range r.Violations {
		fmt.Fprintf(&b, "\n### %d. %s\n\n", i+1, v.Signature)
		fmt.Fprintf(&b, "- schedule %d (seed %d), %d runs with this signature, first after %.1f s\n", v.Schedule, v.Seed, v.Hits, v.FoundAfter)
		if v.ShrunkSignature != "" {
			fmt.Fprintf(&b, "- shrunk in %d steps (%d tries) to `%s`\n", v.ShrinkSteps, v.ShrinkTries, v.ShrunkSignature)
		}
		if v.Cause != "" {
			fmt.Fprintf(&b, "- cause: %s\n", v.Cause)
		}
		if a := v.Reproduced.AsShrunk; a != nil {
			fmt.Fprintf(&b, "- as shrunk it reproduced %s in virtual time and %s on redis-server; strengthened %d times (x%.1f each: the run, the hold and the faults, or the hold x4 and the run alone), it reproduced %s and %s\n",
				orDash(a.Virtual), orDash(a.Redis), v.Strengthened, strength, orDash(v.Reproduced.Virtual), orDash(v.Reproduced.Redis))
		}
		if v.Note != "" {
			fmt.Fprintf(&b, "- %s\n", v.Note)
		}
		if v.Unconfirmed != "" {
			b.WriteString("- not confirmed (budget): the budget ended before its replays were done\n")
		}
		if v.Reason != "" {
			fmt.Fprintf(&b, "- checker: %s\n", v.Reason)
		}
		if v.Dir != "" {
			fmt.Fprintf(&b, "- run directory: %s (as expected: %v)\n", v.Dir, v.RunAsExpected)
		}
		if v.Scenario != "" {
			replay := orDefault(v.Replay, "locksim run "+v.Scenario)
			if where := replayWhere(r.Algorithm); where != "" && v.Replay != "" {
				fmt.Fprintf(&b, "- replay %s: `%s`\n", where, replay)
			} else {
				fmt.Fprintf(&b, "- replay: `%s`\n", replay)
			}
			if v.Cause != "" && v.CoveredBy == 0 {
				if data, err := os.ReadFile(v.Scenario); err == nil {
					fmt.Fprintf(&b, "\n```yaml\n%s```\n", data)
				}
			}
		}
	}
	return b.String()
}

// writeCauses writes summary.md's causes table and the counts of the
// violations without a cause.
func (r *Report) writeCauses(b *strings.Builder) {
	causes := r.Causes
	if causes == nil {
		causes = causesOf(r.Violations)
	}
	fmt.Fprintf(b, "## Causes\n\n**%s of %s.** A cause is a shrunk scenario's faults: each fault's kind, its trigger (a loop point, or a time) and its lengths as classes of the lease (< ttl, > ttl); the signatures it explains were shrunk to it or covered by it. Reproduced: how often its scenario failed the same check in 10 reruns.\n\n",
		plural(len(causes), "cause"), plural(len(r.Violations), "signature"))
	if len(causes) > 0 {
		b.WriteString("| cause | check | verdict | faults | signatures | runs | reproduced (virtual) | reproduced (redis) | scenario |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		for i, c := range causes {
			fmt.Fprintf(b, "| %d. %s | %s | %s | %d | %s | %d | %s | %s | %s |\n",
				i+1, c.Faults, orDash(c.Check), c.Verdict, c.FaultCount, numbers(c.Violations), c.Hits,
				orDash(c.Reproduced.Virtual), orDash(c.Reproduced.Redis), orDash(c.Scenario))
		}
		b.WriteString("\n")
	}
	counts := unshrunkCounts(r.Violations)
	for _, why := range unshrunkOrder {
		if n := counts[why]; n > 0 {
			fmt.Fprintf(b, "- %d signatures %s\n", n, unshrunkWhy[why])
		}
	}
	if len(counts) > 0 {
		b.WriteString("\n")
	}
	if c := firstReplay(causes); c != nil {
		if where := replayWhere(r.Algorithm); where != "" {
			fmt.Fprintf(b, "Replay a cause's scenario %s: `%s`.\n\n", where, c.Replay)
		} else {
			fmt.Fprintf(b, "Replay a cause's scenario: `%s`.\n\n", c.Replay)
		}
	}
}

func firstReplay(cs []Cause) *Cause {
	for i := range cs {
		if cs[i].Replay != "" {
			return &cs[i]
		}
	}
	return nil
}

// numbers lists violation numbers as "#1, #4, #7", the first ten.
func numbers(ns []int) string {
	var parts []string
	for i, n := range ns {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("+%d", len(ns)-10))
			break
		}
		parts = append(parts, fmt.Sprintf("#%d", n))
	}
	return fmt.Sprintf("%d (%s)", len(ns), strings.Join(parts, ", "))
}

// status says in a few words what became of a violation.
func (v Violation) status() string {
	switch {
	case v.CoveredBy > 0:
		return fmt.Sprintf("covered by #%d", v.CoveredBy)
	case v.Cause != "" && v.CutShort:
		return "shrunk (cut short: budget)"
	case v.Cause != "":
		return "shrunk"
	}
	return unshrunkWhy[orDefault(v.Unshrunk, UnshrunkError)]
}
