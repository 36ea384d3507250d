package explore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// checkTimeout bounds porcupine in bulk runs; running out is unknown.
const checkTimeout = 10 * time.Second

// Finding is what one run of a schedule showed.
type Finding struct {
	// Check is the check that failed: claim, fencing, exclusion (in that
	// order of precedence: a broken claim explains an exclusion failure),
	// liveness, or for an unknown verdict the first unknown check ("" when
	// the run as a whole was unknown, e.g. no lease was ever granted).
	// Empty Verdict: the run was safe.
	Check   string
	Verdict vocab.Verdict
	// Kinds are the fault kinds active at the witness, sorted, each once;
	// none for a check without a witness (liveness, unknown), whose cause
	// the history does not pin down: grouping those by every kind that
	// acted made hundreds of signatures of one deadlock.
	Kinds []string
	// Reason is the checker's reason for an unknown verdict.
	Reason string
	// Known: the reference design (Config.Against) failed the same check
	// with the same verdict on the same schedule: a weakness of the
	// family, not of this design alone.
	Known bool
	// NotPlayed: the run tested nothing (no lease granted, every check
	// skipped); it is counted, neither safe nor a violation.
	NotPlayed bool `json:"-"`
}

// Violation reports whether the run was not safe.
func (f Finding) Violation() bool { return f.Verdict != "" }

// Signature groups findings: the check, its verdict and the kinds active
// at the witness, as "claim unsafe [kill-node pause-client]", followed by
// "known" when the reference fails it too, so that a design's own failure
// never hides in a group of the family's.
func (f Finding) Signature() string {
	check := f.Check
	if check == "" {
		check = "run"
	}
	sig := fmt.Sprintf("%s %s [%s]", check, f.Verdict, strings.Join(f.Kinds, " "))
	if f.Known {
		sig += " known"
	}
	return sig
}

// Same reports whether g is the same failure as f for shrinking: the same
// check with the same verdict.
func (f Finding) Same(g Finding) bool { return f.Check == g.Check && f.Verdict == g.Verdict }

// outcome is one run: the finding, and what shrinking reads of it.
type outcome struct {
	Finding
	res *sim.Result
	// checks are every check's verdict: the finding names one failed
	// check, but others may have failed beside it.
	checks map[string]vocab.Verdict
}

// Same reports whether the run shows target's failure: target's check
// failed with target's verdict, whatever other check failed beside it.
// A failure is named after the first failed check in precedence order,
// but shrinking keeps a step while "the same check still fails": a client
// pause that lets one client DEL another's lease breaks the claim and
// exclusion both, and an exclusion failure found where the claim held
// must be allowed to shrink to that pause, which is named a claim
// failure. A run that tested nothing shows nothing.
func (o outcome) Same(target Finding) bool {
	if o.NotPlayed {
		return false
	}
	if v, ok := o.checks[target.Check]; ok && target.Check != "" {
		return v == target.Verdict
	}
	return o.Finding.Same(target)
}

// runOnce plays s for algo with the given seed in virtual time (the host
// in ctx) and checks it. Bad input comes back as an error wrapping
// BadInput; a harness failure as any other error.
func runOnce(ctx context.Context, s *scenarios.Scenario, algo string, seed uint64) (outcome, error) {
	cfg, err := s.Config(algo)
	if err != nil {
		return outcome{}, fmt.Errorf("%w: %v", BadInput, err)
	}
	cfg.Seed = seed
	cfg.VirtualTime = true
	spec, err := cfg.Resolve()
	if err != nil {
		return outcome{}, fmt.Errorf("%w: %w", sim.ErrConfig, err)
	}
	return play(ctx, s, spec)
}

// play runs spec (resolved from s) and classifies its verdict.
func play(ctx context.Context, s *scenarios.Scenario, spec sim.Spec) (outcome, error) {
	res, cr, err := run.Quiet(ctx, spec, checkTimeout)
	if err != nil {
		return outcome{res: res}, err
	}
	checks := make(map[string]vocab.Verdict, len(cr.Checks))
	for _, c := range cr.Checks {
		checks[c.Name] = c.Verdict
	}
	return outcome{Finding: classify(cr, s), res: res, checks: checks}, nil
}

// precedence orders the checks a finding is named after.
var precedence = []string{vocab.CheckClaim, vocab.CheckFencing, vocab.CheckExclusion, vocab.CheckLiveness}

// classify names the failure of one checked run, if any.
func classify(cr checker.Result, s *scenarios.Scenario) Finding {
	var f Finding
	switch cr.Verdict {
	case vocab.Unsafe:
		for _, name := range precedence {
			if c := cr.Check(name); c.Verdict == vocab.Unsafe && name != vocab.CheckLiveness {
				f.Check, f.Verdict = name, vocab.Unsafe
				f.Kinds = witnessKinds(c, s)
				break
			}
		}
	case vocab.Deadlock:
		f.Check, f.Verdict = vocab.CheckLiveness, vocab.Deadlock
	case vocab.Unknown:
		if cr.TestedNothing {
			// No lease granted, nothing judged: the schedule did not
			// play (its faults kept every client out). Not played is
			// never safe, and it is no finding about the lock either.
			return Finding{NotPlayed: true}
		}
		f.Verdict, f.Reason = vocab.Unknown, cr.Reason
		for _, name := range precedence {
			if cr.Check(name).Verdict == vocab.Unknown {
				f.Check = name
				break
			}
		}
	default:
		return Finding{}
	}
	if f.Kinds == nil {
		f.Kinds = []string{}
	}
	return f
}

// witnessKinds are the kinds of the scenario's faults that the check's
// witnesses name as active.
func witnessKinds(c checker.CheckResult, s *scenarios.Scenario) []string {
	var out []string
	for _, w := range c.Witnesses {
		for _, fw := range w.Faults {
			if fw.ID >= 1 && fw.ID <= len(s.Faults) {
				out = append(out, string(s.Faults[fw.ID-1].Kind))
			}
		}
	}
	return uniq(out)
}

func uniq(xs []string) []string {
	out := []string{}
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
