package explore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// Environment of the mutation suite.
const (
	// envMutants runs TestMutantsFound (a minute of search per mutant at
	// most, plus a shrink each); LOCKSIM_MUTANTS_TABLE=PATH also writes its
	// table there, as docs/results.md shows it.
	envMutants      = "LOCKSIM_MUTANTS"
	envMutantsTable = "LOCKSIM_MUTANTS_TABLE"
	// envControlRuns sets how many schedules each control runs in
	// TestMutantControls [200].
	envControlRuns = "LOCKSIM_CONTROL_RUNS"
)

// mutantBudget is the wall time of search a mutant may take to be found.
const mutantBudget = 60 * time.Second

// TestMutantsFound explores every mutant of the suite with the default
// kinds until a violation that its reference does not share comes up,
// within mutantBudget of search, and shrinks it: a one-line mutant of a
// real design must be found, and told apart from the design it was copied
// from. It is long (up to a minute of search per mutant, and a shrink
// each) and runs only when LOCKSIM_MUTANTS=1.
func TestMutantsFound(t *testing.T) {
	if os.Getenv(envMutants) == "" {
		t.Skipf("the mutation suite takes minutes; %s=1 runs it", envMutants)
	}
	require.NoError(t, registerMutants())
	var rows []string
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			row := findMutant(t, m)
			rows = append(rows, row)
			t.Log(row)
		})
	}
	table := "| mutant | like | the line changed | found after (runs, s) | check | faults after shrinking | shrunk workload |\n|---|---|---|---|---|---|---|\n" +
		strings.Join(rows, "\n") + "\n"
	t.Log("\n" + table)
	if path := os.Getenv(envMutantsTable); path != "" {
		require.NoError(t, os.WriteFile(path, []byte(table), 0o644))
	}
}

// findMutant searches m until its first violation that the reference does
// not share, shrinks that violation and returns its table row.
func findMutant(t *testing.T, m mutant) string {
	t.Helper()
	ctx, cancel := context.WithCancel(vtime.NewContext(context.Background(), vtime.ForTest(t)))
	defer cancel()
	cfg := explore.Config{Algorithm: m.name, For: mutantBudget, NoShrink: true, Confirm: explore.ConfirmNone, Out: t.TempDir(),
		Progress: func(p explore.Progress) {
			// A signature the reference shares ends in "known"; the
			// first other one ends the search.
			if strings.HasPrefix(p.Line, "found ") && !strings.Contains(p.Line, " known ") {
				cancel()
			}
		}}
	rep, err := explore.Explore(ctx, cfg)
	require.NotNil(t, rep, "explore %s: %v", m.name, err)
	assert.Equal(t, m.like, rep.Reference, "the mutant is compared with the design it was copied from")
	own := rep.Failing()
	require.NotEmpty(t, own, "%s (%s): no violation that %s does not share in %v of search (%d runs; %d known)",
		m.name, m.change, m.like, mutantBudget, rep.Runs, len(rep.Violations))
	first := own[0]
	for _, v := range own {
		if v.FoundAfter < first.FoundAfter {
			first = v
		}
	}
	assert.LessOrEqual(t, first.FoundAfter, mutantBudget.Seconds())
	assert.False(t, first.Known)

	// The shrink of that schedule, as the exploration would shrink it.
	sctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	full := cfg
	full.Progress = nil
	full, err = full.Resolve()
	require.NoError(t, err)
	// The schedule as it ran (a guided draw is not Generate's), as the
	// exploration wrote it.
	require.NotEmpty(t, first.Scenario, "the found schedule is written")
	s, err := scenarios.LoadFile(first.Scenario)
	require.NoError(t, err)
	target := explore.Finding{Check: first.Check, Verdict: vocab.Verdict(first.Verdict)}
	sh, err := explore.Shrink(sctx, s, m.name, target)
	require.NoError(t, err)
	after := "not shrunk (under 8 of 10)"
	shrunk := s
	if sh.Passed {
		shrunk = sh.Scenario
		var kinds []string
		for _, f := range shrunk.Faults {
			kinds = append(kinds, string(f.Kind))
		}
		after = fmt.Sprintf("%d -> %d (%s)", len(s.Faults), len(shrunk.Faults), orNone(strings.Join(kinds, ", ")))
	}
	return fmt.Sprintf("| %s | %s | %s | %d, %.1f s | %s %s | %s | %s |", strings.TrimPrefix(m.name, "mutant-"), m.like, m.change,
		first.FoundAtRun, first.FoundAfter, first.Check, first.Verdict, after, workloadOf(shrunk.Options.Watchdog, shrunk.Nest, shrunk.Hold.D()))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// workloadOf says the drawn workload of a scenario in a few words.
func workloadOf(watchdog *bool, nest *int, hold time.Duration) string {
	var out []string
	if watchdog != nil && *watchdog {
		out = append(out, "watchdog")
	}
	if nest != nil {
		out = append(out, fmt.Sprintf("nest %d", *nest))
	}
	if hold > 0 {
		out = append(out, "hold "+hold.String())
	}
	return strings.Join(out, ", ")
}

// TestMutantControls: the designs the mutants were copied from, each
// explored against itself, and a copy of setpx registered under another
// name with Like: setpx, show no violation that their reference does not
// share: the comparison does not call a design's own run of a schedule
// different from its reference's. LOCKSIM_CONTROL_RUNS sets the schedules
// per control [200].
func TestMutantControls(t *testing.T) {
	if testing.Short() {
		t.Skip("explores five designs")
	}
	require.NoError(t, registerMutants())
	runs := 200
	if s := os.Getenv(envControlRuns); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, envControlRuns)
		runs = n
	}
	controls := []struct{ algo, against string }{
		{controlSetPX, ""}, {"setpx", "setpx"}, {"fenced", "fenced"}, {"reentrant", "reentrant"}, {"redlock", "redlock"},
	}
	for _, c := range controls {
		t.Run(c.algo, func(t *testing.T) {
			ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
			began := time.Now()
			rep, err := explore.Explore(ctx, explore.Config{Algorithm: c.algo, Against: c.against, Runs: runs,
				NoShrink: true, Confirm: explore.ConfirmNone})
			require.NoError(t, err)
			want := c.against
			if want == "" {
				want = "setpx" // the copy's Like
			}
			assert.Equal(t, want, rep.Reference)
			known := 0
			for _, v := range rep.Violations {
				if v.Known {
					known += v.Hits
				}
			}
			for _, v := range rep.Failing() {
				t.Errorf("%s: %s found where %s does not fail it (schedule %d, %d hits)", c.algo, v.Signature, rep.Reference, v.Schedule, v.Hits)
			}
			t.Logf("control %s against %s: %d runs in %.0f s, %d violating runs all known (%d distinct), %d candidate-only",
				c.algo, rep.Reference, rep.Runs, time.Since(began).Seconds(), known, len(rep.Violations), len(rep.Failing()))
		})
	}
}

// TestCorrectCopyPassesExploreTest: a correct lock, setpx under another
// name with Like: setpx, passes explore.Test with the default kinds: the
// overlaps every unfenced lock shows under long pauses are its
// reference's too, so they are reported as known and fail nothing.
func TestCorrectCopyPassesExploreTest(t *testing.T) {
	if testing.Short() {
		t.Skip("explores a design")
	}
	require.NoError(t, registerMutants())
	info, err := lock.Lookup(controlSetPX)
	require.NoError(t, err)
	require.Equal(t, "setpx", info.Like)
	rep := explore.Test(t, controlSetPX, explore.Config{Runs: 300})
	require.NotNil(t, rep)
	assert.Equal(t, "setpx", rep.Reference)
	assert.Empty(t, rep.Failing())
	assert.NotEmpty(t, rep.Violations, "the default kinds find the family's overlaps; they are known, not failures")
}
