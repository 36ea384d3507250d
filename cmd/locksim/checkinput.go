package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/regfile"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/sim"
)

// readRunDir reads what locksim check re-checks, within the bounds of a
// run (sim.HistoryLimit): verdict.json and history.jsonl must be regular
// files (a FIFO would block the read), the saved client count within
// run's range, the history no larger than this machine's memory budget for
// a run, with no more operations than fit it and no client beyond the
// run's bound. Bad input is a usage error naming the file and the limit;
// an interruption (ctx) while reading is locksim's.
func readRunDir(ctx context.Context, dir string) (report.VerdictFile, history.History, error) {
	vpath := filepath.Join(dir, report.FileVerdict)
	if err := regfile.Check(vpath); err != nil {
		return report.VerdictFile{}, history.History{}, usageErr(fmt.Errorf("%s is not a run directory: %w", dir, err))
	}
	saved, err := report.ReadVerdict(vpath)
	if err != nil {
		return report.VerdictFile{}, history.History{}, usageErr(fmt.Errorf("%s is not a run directory: %w", dir, err))
	}
	if n := saved.Config.Clients; n != 0 {
		if err := sim.CheckValue("clients", n); err != nil {
			return report.VerdictFile{}, history.History{}, usageErr(fmt.Errorf("%s: %w", vpath, err))
		}
	}
	hpath := filepath.Join(dir, report.FileHistory)
	f, fi, err := regfile.Open(hpath)
	if err != nil {
		return report.VerdictFile{}, history.History{}, usageErr(fmt.Errorf("%s: %w", dir, err))
	}
	defer f.Close()
	lim := sim.HistoryLimit()
	if err := lim.CheckSize(fi.Size()); err != nil {
		return report.VerdictFile{}, history.History{}, usageErr(fmt.Errorf("%s: %w", hpath, err))
	}
	h, err := history.ReadJSONLBounded(ctx, f, history.Bounds{Ops: lim.Ops, Clients: lim.Clients})
	switch {
	case err == nil:
		return saved, h, nil
	case ctx.Err() != nil:
		return report.VerdictFile{}, history.History{}, harnessErr(fmt.Errorf("reading %s interrupted: %w", hpath, context.Cause(ctx)))
	}
	return report.VerdictFile{}, history.History{}, usageErr(fmt.Errorf("%s: %w", hpath, err))
}

// checkInterruptible checks h and collects its warnings, or returns the
// context's error as soon as ctx ends. The checker takes no context: on an
// interruption its goroutine is left to the process's exit, which follows
// the error at once.
func checkInterruptible(ctx context.Context, h history.History, cfg checker.Config, clients int) (checker.Result, []string, error) {
	type answer struct {
		r        checker.Result
		warnings []string
	}
	if err := ctx.Err(); err != nil {
		return checker.Result{}, nil, context.Cause(ctx)
	}
	done := make(chan answer, 1)
	go func() {
		r := checker.Check(h, cfg)
		done <- answer{r, checker.Warnings(h, clients)}
	}()
	select {
	case a := <-done:
		return a.r, a.warnings, nil
	case <-ctx.Done():
		return checker.Result{}, nil, context.Cause(ctx)
	}
}

// perClientWarning matches the warnings checker.Warnings says of one
// client; the rest of the line is the client's detail.
var perClientWarning = regexp.MustCompile(`^client (\d+) (never acquired the lock|never tried to acquire the lock)`)

// warningsShown is how many warnings of one per-client kind are printed
// before the rest are counted in one line.
const warningsShown = 3

// aggregateWarnings keeps the warnings that are not about one client,
// and of each per-client kind the first warningsShown, followed by one
// line that counts the rest and names their first and last client:
// "997 more clients never acquired the lock (clients 3 to 999)". A
// history of many clients that never got the lock then prints a few
// lines, not one per client.
func aggregateWarnings(ws []string) []string {
	type group struct {
		n           int
		first, last string
	}
	groups := map[string]*group{}
	var kinds []string
	var out []string
	for _, w := range ws {
		m := perClientWarning.FindStringSubmatch(w)
		if m == nil {
			out = append(out, w)
			continue
		}
		g := groups[m[2]]
		if g == nil {
			g = &group{}
			groups[m[2]] = g
			kinds = append(kinds, m[2])
		}
		g.n++
		switch {
		case g.n <= warningsShown:
			out = append(out, w)
		case g.n == warningsShown+1:
			g.first, g.last = m[1], m[1]
		default:
			g.last = m[1]
		}
	}
	for _, k := range kinds {
		g := groups[k]
		if more := g.n - warningsShown; more > 0 {
			clients := "client " + g.first
			if more > 1 {
				clients = "clients " + g.first + " to " + g.last
			}
			out = append(out, fmt.Sprintf("%s more %s %s (%s)", thousands(more), pluralNoun(more, "client"), k, clients))
		}
	}
	return out
}

func pluralNoun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
