package matrix

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/internal/shard"
	"github.com/locksim/locksim/internal/version"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Config says which scenario x algorithm pairs a matrix runs and how.
type Config struct {
	// Scenarios are the rows, in order [scenarios.Builtin()]. Names must be unique.
	Scenarios []*scenarios.Scenario
	// Algorithms are the columns, in order [every design some scenario
	// applies to, in lock.Names() order].
	Algorithms []string
	// Runs is how many times each pair runs, run i with seed + i, the seed
	// being Seed when set, else the scenario's own: independent runs, each
	// reproducible with `locksim run --seed` [1].
	Runs int
	// Seed, when set, is the base seed of every scenario in place of its
	// own.
	Seed *uint64
	// Backend overrides every scenario's backend when set (miniredis,
	// redis, or external, which needs Addrs).
	Backend string
	// Server is the program the redis backend's pairs run: redis or
	// valkey (sim.Server) [redis].
	Server string
	// Addrs run every pair on the external backend, on the masters at
	// these host:port addresses (scenarios.Servers.Addrs); Backend may be left
	// out or be external. Pairs that need what those servers do not give
	// (process control, replicas, another node count) are skipped with
	// the reason. A run holds the servers alone (scenarios.GuardKey), so
	// runs go one at a time: Parallel defaults to, and must be, 1.
	Addrs []string
	// Toxiproxy puts every run's proxies on the toxiproxy server whose API
	// is at this host:port (scenarios.Servers.Toxiproxy).
	Toxiproxy string
	// RealTime runs miniredis pairs on the wall clock instead of in
	// virtual time (run.Options.RealTime).
	RealTime bool
	// Out is the results root; the matrix lands in Out/matrix/<UTC stamp>/
	// ["results"].
	Out string
	// Parallel is how many runs go at once [DefaultParallel()].
	Parallel int
	// CheckTimeout bounds porcupine per run [10s].
	CheckTimeout time.Duration
	// Timeout bounds each run as a whole (run.Options.Timeout) [its
	// duration + 1m].
	Timeout time.Duration
	// Shard is the part of the runs this matrix makes: the runs of the
	// planned (scenario, design, run) triples k with k mod Count ==
	// Index, in plan order (shard.go) [shard.All].
	Shard shard.Shard
	// Progress, when set, hears once before anything runs (Done 0), then
	// of every finished run and every pair that is not run; calls come one
	// at a time.
	Progress func(Progress)
}

// Progress is one step of a matrix: a finished run, or a pair that
// is not run (Run 0).
type Progress struct {
	Done, Total int
	Scenario    string
	Algorithm   string
	Run         int    // 1-based; 0 for a pair that is not run
	Verdict     string // the run's verdict, or skip, n/a, error
	AsExpected  bool
}

// DefaultParallel is how many scenario runs a matrix runs at once on the
// wall clock: three per core, because a run mostly sleeps (holds, pauses,
// TTLs) while its checker and in-process nodes use little CPU, and its
// faults fire at points, not at times. Measured on 2 cores with the
// built-in catalogue (locksim matrix --runs 10 --parallel 6): every one of
// 245 pairs agreed with its expectation in 10 of 10 runs, locksim used 17%
// of the machine and the Go scheduler's p99 latency was 0.5 ms; one run
// per pair took 1m36s at 6 at a time against 3m10s at 3. Every matrix
// measures its own load (Load) and says when the machine was too busy for
// its timings to be trusted.
func DefaultParallel() int { return max(1, 3*runtime.NumCPU()) }

// DefaultParallelVirtual is the same for a matrix whose every run goes in
// virtual time: six per core. There a run's waits cost nothing and its
// timing cannot be disturbed, so it is CPU and the writing of its files;
// more runs at once keep both cores busy while others sync. Measured on 2
// idle cores (locksim matrix --runs 10, the 16 Go designs): 73 s of wall
// time at 6 at once, 58 s at 12, the same CPU.
func DefaultParallelVirtual() int { return max(1, 6*runtime.NumCPU()) }

// Matrix is the outcome of Run, as matrix.json holds it.
type Matrix struct {
	// Dir is where the matrix was written; not in matrix.json, whose
	// paths are all relative to its own directory.
	Dir        string            `json:"-"`
	Started    time.Time         `json:"started"`
	WallMS     float64           `json:"wall_ms"`
	Machine    string            `json:"machine"`
	Runs       int               `json:"runs"`           // per pair
	Seed       *uint64           `json:"seed,omitempty"` // the base seed, when not each scenario's own
	Parallel   int               `json:"parallel"`       // runs at once
	Backend    string            `json:"backend,omitempty"`
	Server     string            `json:"server,omitempty"`    // the redis backend's server kind, when not redis
	Addrs      []string          `json:"addrs,omitempty"`     // the external backend's masters
	Toxiproxy  string            `json:"toxiproxy,omitempty"` // the toxiproxy server that held the proxies
	Algorithms []string          `json:"algorithms"`
	Scenarios  []Row             `json:"scenarios"`
	Cells      []Cell            `json:"cells"` // row by row, in Scenarios x Algorithms order
	Totals     Totals            `json:"totals"`
	Load       Load              `json:"load"`
	Verdicts   map[string]string `json:"verdicts"` // what each cell verdict means
	// Incomplete marks a matrix cut short by an interruption: the pairs
	// that finished, the others CellInterrupted. Not a verdict.
	Incomplete bool `json:"incomplete,omitempty"`
	// Version is the locksim that ran it (internal/version); Shard "i/n"
	// for one shard of a matrix, empty for a whole one; Parts, in a
	// merged matrix, each shard's own facts (merge.go).
	Version string `json:"version,omitempty"`
	Shard   string `json:"shard,omitempty"`
	Parts   []Part `json:"parts,omitempty"`
}

// Row is a row of the matrix.
type Row struct {
	Name   string `json:"name"`
	Doc    string `json:"doc,omitempty"`
	Source string `json:"source,omitempty"`
	File   string `json:"file,omitempty"` // a user's file; "" for a built-in
	// Family is the scenario's fault family (scenarios.FamilyOf).
	Family scenarios.Family `json:"family,omitempty"`
}

// CellStatus says what became of a pair.
type CellStatus string

const (
	CellRan   CellStatus = "run"   // its runs are in Runs
	CellSkip  CellStatus = "skip"  // not run, Reason says why (expect: skip, or the backend lacks what it needs)
	CellNA    CellStatus = "n/a"   // the scenario does not apply to the design (not in its algorithm list)
	CellError CellStatus = "error" // a run failed in locksim itself; Reason has the first error
	// CellInterrupted: the matrix was interrupted before the pair's runs
	// all finished; Runs holds those that did.
	CellInterrupted CellStatus = "interrupted"
	// CellElsewhere: in one shard of a matrix, a pair whose runs all
	// belong to other shards.
	CellElsewhere CellStatus = "other-shard"
)

// Mixed is the verdict of a cell whose runs disagree among themselves.
const Mixed = "mixed"

// Cell is one scenario x algorithm pair over its runs.
type Cell struct {
	Scenario  string     `json:"scenario"`
	Algorithm string     `json:"algorithm"`
	Status    CellStatus `json:"status"`
	// Expected is the expectation in one line ("" when none), for
	// people; ExpectedVerdict and ExpectedChecks are the same expectation
	// as typed values, for Expectation.
	Expected        string                   `json:"expected,omitempty"`
	ExpectedVerdict vocab.Verdict            `json:"expected_verdict,omitempty"`
	ExpectedChecks  map[string]vocab.Verdict `json:"expected_checks,omitempty"`
	Reason          string                   `json:"reason,omitempty"`
	// Verdict is the runs' verdict when they all agree, else Mixed; empty
	// when nothing ran.
	Verdict string `json:"verdict,omitempty"`
	// Agreed counts the runs whose verdict met the expectation.
	Agreed     int       `json:"agreed"`
	AsExpected bool      `json:"as_expected"` // every run agreed (skip and n/a: true; error: false)
	Runs       []CellRun `json:"runs,omitempty"`
}

// Expectation is what the scenario expected of the pair, as a typed value
// (the zero Expectation when nothing was expected): compare runs with it
// through its Misses and Meets.
func (c Cell) Expectation() scenarios.Expectation {
	return scenarios.Expectation{Verdict: c.ExpectedVerdict, Checks: c.ExpectedChecks}
}

// CellRun is one run of a pair.
type CellRun struct {
	// Run is the run's index in its pair (0-based): run i has seed + i.
	Run        int                      `json:"run"`
	Seed       uint64                   `json:"seed"`
	Verdict    vocab.Verdict            `json:"verdict,omitempty"`
	Checks     map[string]vocab.Verdict `json:"checks,omitempty"`
	AsExpected bool                     `json:"as_expected"`
	// Dir is the run's report directory, relative to the matrix directory,
	// with forward slashes.
	Dir    string   `json:"dir,omitempty"`
	WallMS float64  `json:"wall_ms"`
	Notes  []string `json:"notes,omitempty"`
	// Unplayed: faults the scenario needs that never acted, and
	// requirements that did not happen, in this run.
	Unplayed []string `json:"unplayed,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// Totals counts the cells by what became of them.
type Totals struct {
	Cells   int `json:"cells"`   // pairs run
	Agreed  int `json:"agreed"`  // pairs run whose every run met the expectation
	Differ  int `json:"differ"`  // pairs run with a run that did not
	Skipped int `json:"skipped"` // pairs not run, with a reason
	NA      int `json:"na"`      // pairs that do not apply
	Errors  int `json:"errors"`  // pairs locksim failed to run
	// Interrupted counts the pairs an interruption cut short.
	Interrupted int `json:"interrupted,omitempty"`
	// Elsewhere counts, in one shard, the pairs other shards run.
	Elsewhere int `json:"elsewhere,omitempty"`
}

// OK reports whether the matrix met every expectation: every pair that
// ran agreed in all its runs, and none failed to run.
func (m Matrix) OK() bool { return m.Totals.Differ == 0 && m.Totals.Errors == 0 && !m.Incomplete }

// Cell returns the cell of scenario x algo, or nil.
func (m *Matrix) Cell(scenario, algo string) *Cell {
	for i := range m.Cells {
		if m.Cells[i].Scenario == scenario && m.Cells[i].Algorithm == algo {
			return &m.Cells[i]
		}
	}
	return nil
}

// Run runs every pair of cfg, K times each, in parallel, and writes
// Out/matrix/<stamp>/ with matrix.md, matrix.json, matrix.html and the
// run directories under runs/. The directory is built under a temporary
// name and renamed when complete, then Out/matrix/latest points at it: a
// matrix directory that exists is a finished matrix.
//
// Errors: bad input (an unknown design, a scenario that does not resolve)
// is a *Error or wraps sim.ErrConfig, found before anything runs. A run
// that locksim failed to carry out makes its cell an error cell; the
// matrix is still written and returned, with an error wrapping
// sim.ErrHarness. A cancelled ctx stops the matrix: running runs end, the
// matrix is written with the pairs that finished, marked Incomplete (the
// others CellInterrupted), latest does not move, and the error wraps
// ctx.Err().
func Run(ctx context.Context, cfg Config) (Matrix, error) {
	p, err := makePlan(cfg)
	if err != nil {
		return Matrix{}, err
	}
	cfg = p.cfg
	m := Matrix{
		Started:    time.Now(),
		Machine:    run.Machine(),
		Runs:       cfg.Runs,
		Seed:       cfg.Seed,
		Parallel:   cfg.Parallel,
		Backend:    cfg.Backend,
		Server:     cfg.Server,
		Addrs:      cfg.Addrs,
		Toxiproxy:  cfg.Toxiproxy,
		Algorithms: cfg.Algorithms,
		Cells:      p.cells,
		Verdicts:   verdictMeanings,
		Version:    version.String(),
	}
	if cfg.Shard.Count > 1 {
		m.Shard = cfg.Shard.String()
	}
	for _, s := range cfg.Scenarios {
		m.Scenarios = append(m.Scenarios, Row{Name: s.Name, Doc: strings.TrimSpace(s.Doc), Source: s.Source, File: s.UserFile(), Family: scenarios.FamilyOf(s)})
	}
	w, err := newOutDir(cfg.Out, m.Started)
	if err != nil {
		return Matrix{}, fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	meter := startLoad()
	runErr := runJobs(ctx, cfg, w.tmp, p.jobs, m.Cells)
	keepShard(m.Cells, p.jobs, cfg.Runs)
	if runErr != nil {
		if ctx.Err() == nil {
			w.discard()
			return Matrix{}, runErr
		}
		m.Incomplete = true
		markInterrupted(m.Cells)
	}
	m.Load = meter.stop()
	m.WallMS = float64(time.Since(m.Started)) / float64(time.Millisecond)
	m.summarize()
	if err := w.finish(&m); err != nil {
		// The runs are done and their reports written: a matrix file that
		// cannot be written must not take their histories with it.
		kept := w.tmp
		if m.Dir != "" {
			kept = m.Dir
		}
		return Matrix{}, fmt.Errorf("%w: matrix: %w; its runs are kept in %s", sim.ErrHarness, err, kept)
	}
	if m.Incomplete {
		return m, fmt.Errorf("matrix interrupted; the %d pairs that finished are in %s, marked incomplete: %w", m.Totals.Cells, m.Dir, ctx.Err())
	}
	if m.Totals.Errors > 0 {
		return m, fmt.Errorf("%w: %d of %d pairs could not be run (see matrix.md)", sim.ErrHarness, m.Totals.Errors, m.Totals.Cells+m.Totals.Errors)
	}
	return m, nil
}

// verdictMeanings is the legend matrix.json carries for readers without
// the README.
var verdictMeanings = map[string]string{
	string(vocab.Safe):     "every safety check and liveness held",
	string(vocab.Unsafe):   "a safety check (exclusion, claim or fencing) failed; the run's verdict.json has the witness",
	string(vocab.Deadlock): "safe, but after every fault healed a probe could not acquire within TTL + slack",
	string(vocab.Unknown):  "the checker could not decide (timeout); never counted as a pass",
	Mixed:                  "the cell's runs disagree among themselves; see each run",
	string(vocab.Skip):     "not run; reason says why",
	"n/a":                  "the scenario does not apply to the design",
	"error":                "locksim failed to run the pair; reason has the error",
	"interrupted":          "the matrix was interrupted before the pair's runs finished; not a verdict",
	"other-shard":          "in one shard of a matrix: the pair's runs are other shards'; locksim matrix merge joins them",
}

// markInterrupted turns every cell that ran but whose runs did not all
// finish into CellInterrupted, keeping the runs that did.
func markInterrupted(cells []Cell) {
	for i := range cells {
		c := &cells[i]
		if c.Status != CellRan {
			continue
		}
		var done []CellRun
		for _, r := range c.Runs {
			if r.Error == "" && r.Verdict != "" {
				done = append(done, r)
			}
		}
		if len(done) < len(c.Runs) {
			c.Status, c.AsExpected = CellInterrupted, false
			c.Reason = fmt.Sprintf("the matrix was interrupted when %d of its %d runs had finished", len(done), len(c.Runs))
			c.Runs = done
		}
	}
}

// job is one run of one pair.
type job struct {
	cell int                 // index into the cells
	run  int                 // 0-based
	s    *scenarios.Scenario // this run's own copy, seed and backend set
	algo string
}

// runJobs runs the jobs on cfg.Parallel workers and fills in the cells.
// The jobs of a cell are filled in run order whatever order they finish in.
func runJobs(ctx context.Context, cfg Config, root string, jobs []job, cells []Cell) error {
	for i := range cells {
		if cells[i].Status == CellRan {
			cells[i].Runs = make([]CellRun, cfg.Runs)
		}
	}
	total := len(jobs)
	for _, c := range cells {
		if c.Status != CellRan {
			total++
		}
	}
	var mu sync.Mutex
	done := 0
	report := func(ev Progress) {
		mu.Lock()
		defer mu.Unlock()
		done++
		ev.Done, ev.Total = done, total
		if cfg.Progress != nil {
			cfg.Progress(ev)
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(Progress{Total: total})
	}
	for _, c := range cells {
		if c.Status != CellRan {
			report(Progress{Scenario: c.Scenario, Algorithm: c.Algorithm, Verdict: string(c.Status), AsExpected: c.AsExpected})
		}
	}

	pics := newPictures(ctx, len(cells), jobs)
	plans := make([]cellPlan, len(cells))
	links := newCellLinks(len(cells), jobs)
	queue := make(chan job)
	var wg sync.WaitGroup
	var interrupted error
	for range cfg.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				r, linkDir, err := runOne(ctx, cfg, root, j, &plans[j.cell], pics.rule(j.cell, j.run))
				if pics.leads(j.cell, j.run) {
					verdict := r.Verdict
					if r.Error != "" {
						verdict = ""
					}
					pics.firstDone(j.cell, verdict)
				}
				if lerr := links.done(j.cell, j.algo, linkDir); lerr != nil && r.Error == "" {
					r.Error = lerr.Error()
				}
				mu.Lock()
				cells[j.cell].Runs[j.run] = r
				if err != nil && ctx.Err() != nil && interrupted == nil {
					interrupted = fmt.Errorf("matrix interrupted: %w", ctx.Err())
				}
				mu.Unlock()
				verdict := string(r.Verdict)
				if r.Error != "" {
					verdict = string(CellError)
				}
				report(Progress{Scenario: cells[j.cell].Scenario, Algorithm: j.algo, Run: j.run + 1, Verdict: verdict, AsExpected: r.AsExpected})
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	// The pairs whose runs did not all finish point their links at the
	// last run that did, as a run does when nothing comes after it.
	links.rest()
	if interrupted != nil {
		return interrupted
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("matrix interrupted: %w", err)
	}
	return nil
}

// cellPlan is a cell's pair resolved once (scenarios.Scenario.Plan) by
// its first run to start; every run of the cell takes its own plan from
// it with its seed (scenarios.Plan.WithSeed), since the runs of a pair
// differ only in their seed.
type cellPlan struct {
	once sync.Once
	plan scenarios.Plan
	ok   bool
}

// of is the plan of job j on w, false when the pair does not resolve
// (the run then plans itself and reports why).
func (c *cellPlan) of(j job, w scenarios.Servers) (scenarios.Plan, bool) {
	c.once.Do(func() {
		p, err := j.s.Plan(j.algo, w)
		c.plan, c.ok = p, err == nil
	})
	if !c.ok {
		return scenarios.Plan{}, false
	}
	return c.plan.WithSeed(deref(j.s.Seed))
}

// cellLinks points each pair's latest links (report.LatestFor its design,
// and report.LatestLink) at the last of its runs to finish whole, once,
// when its last run is done: what the runs' own updates would leave, for
// two links per pair instead of two per run.
type cellLinks struct {
	mu sync.Mutex
	// left[c] counts the runs of cell c still to finish; last[c] is the
	// directory of its last run that finished whole ("" for none), algo[c]
	// its design.
	left       []int
	last, algo []string
}

func newCellLinks(cells int, jobs []job) *cellLinks {
	l := &cellLinks{left: make([]int, cells), last: make([]string, cells), algo: make([]string, cells)}
	for _, j := range jobs {
		l.left[j.cell]++
		l.algo[j.cell] = j.algo
	}
	return l
}

// done records that a run of cell finished, dir the directory its links
// may point at ("" when they must not: the run did not finish whole), and
// points them when it was the cell's last.
func (l *cellLinks) done(cell int, algo, dir string) error {
	l.mu.Lock()
	l.left[cell]--
	if dir != "" {
		l.last[cell] = dir
	}
	last := l.last[cell]
	if l.left[cell] > 0 || last == "" {
		l.mu.Unlock()
		return nil
	}
	l.last[cell] = "" // pointed: rest leaves it
	l.mu.Unlock()
	return pointLinks(algo, last)
}

// rest points the links of the cells whose runs did not all finish (an
// interrupted matrix) at their last run that finished whole.
func (l *cellLinks) rest() {
	for c, dir := range l.last {
		if dir != "" {
			_ = pointLinks(l.algo[c], dir) // the matrix is interrupted: its runs are what it keeps
		}
	}
}

// pointLinks points the scenario's latest-<design> and latest at the run
// directory dir, as run.ExecutePlan does for a run of its own.
func pointLinks(algo, dir string) error {
	for _, link := range []string{report.LatestFor(algo), report.LatestLink} {
		if err := report.UpdateLink(filepath.Dir(dir), link, filepath.Base(dir)); err != nil {
			return fmt.Errorf("%w: %w", sim.ErrHarness, err)
		}
	}
	return nil
}

// runOne executes one job into root/runs/<algo>/: one results root per
// design, so that the designs' runs of a scenario, which share seeds and
// may share a start second, never compete for a run directory name.
// linkDir is the run's directory when it finished whole, for the pair's
// latest links (cellLinks), else "".
func runOne(ctx context.Context, cfg Config, root string, j job, plan *cellPlan, pictures func(run.Outcome) report.Pictures) (r CellRun, linkDir string, err error) {
	r = CellRun{Run: j.run, Seed: deref(j.s.Seed)}
	start := time.Now()
	o := run.Options{
		Out: filepath.Join(root, "runs", j.algo), CheckTimeout: cfg.CheckTimeout, Timeout: cfg.Timeout, RealTime: cfg.RealTime,
		Servers:  scenarios.Servers{Addrs: cfg.Addrs, Toxiproxy: cfg.Toxiproxy},
		Pictures: pictures, NoLinks: true,
	}
	var out run.Outcome
	if p, ok := plan.of(j, o.Servers); ok {
		out, err = run.ExecutePlan(ctx, j.s, p, o)
	} else {
		out, err = run.Execute(ctx, j.s, j.algo, o)
	}
	r.WallMS = float64(time.Since(start)) / float64(time.Millisecond)
	r.Verdict, r.Checks, r.AsExpected, r.Notes, r.Unplayed = out.Verdict, out.Checks, out.AsExpected && err == nil, out.Notes, out.Unplayed
	if out.Dir != "" {
		if rel, rerr := filepath.Rel(root, out.Dir); rerr == nil {
			r.Dir = filepath.ToSlash(rel)
		}
	}
	if out.Dir != "" && !out.Incomplete {
		linkDir = out.Dir
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r, linkDir, err
}

// summarize derives each cell's verdict and agreement from its runs, and
// the totals.
func (m *Matrix) summarize() {
	m.Totals = Totals{}
	for i := range m.Cells {
		c := &m.Cells[i]
		switch c.Status {
		case CellSkip:
			m.Totals.Skipped++
			continue
		case CellNA:
			m.Totals.NA++
			continue
		case CellInterrupted:
			m.Totals.Interrupted++
			continue
		case CellElsewhere:
			m.Totals.Elsewhere++
			continue
		}
		c.Agreed, c.Verdict = 0, ""
		for _, r := range c.Runs {
			if r.Error != "" {
				c.Status = CellError
				if c.Reason == "" {
					c.Reason = r.Error
				}
				continue
			}
			if r.AsExpected {
				c.Agreed++
			}
			switch {
			case c.Verdict == "":
				c.Verdict = string(r.Verdict)
			case c.Verdict != string(r.Verdict):
				c.Verdict = Mixed
			}
		}
		c.AsExpected = c.Status == CellRan && c.Agreed == len(c.Runs)
		switch {
		case c.Status == CellError:
			m.Totals.Errors++
		case c.AsExpected:
			m.Totals.Cells++
			m.Totals.Agreed++
		default:
			m.Totals.Cells++
			m.Totals.Differ++
		}
	}
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// badMatrix marks a matrix configuration the user got wrong.
func badMatrix(format string, args ...any) error {
	return fmt.Errorf("%w: %s", sim.ErrConfig, fmt.Sprintf(format, args...))
}
