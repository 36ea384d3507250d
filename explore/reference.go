package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// AgainstNone, as Config.Against, explores without a reference even when
// the design names one (lock.Info.Like).
const AgainstNone = "none"

// referenceReruns bounds the seeds a reference is run with on a schedule
// the candidate failed: seed s..s+referenceReruns-1, stopping at the first
// that fails the same check. A reference plays another interleaving than
// the candidate once their commands differ, so one seed would call a
// weakness the whole family shares the candidate's own whenever the
// reference's interleaving happened to miss the fault's moment.
const referenceReruns = 10

// reference is the design cfg's candidate is compared with: Against when
// set (none: no reference), else the design's Like; "" when there is none.
func (c Config) reference() string {
	switch c.Against {
	case AgainstNone:
		return ""
	case "":
		info, _ := lock.Lookup(c.Algorithm)
		return info.Like
	}
	return c.Against
}

// validateAgainst checks the reference Against names.
func (c Config) validateAgainst() error {
	if c.Against == "" || c.Against == AgainstNone {
		return nil
	}
	if _, err := lock.Lookup(c.Against); err != nil {
		return bad("--against: %v", err)
	}
	return nil
}

// judge runs the reference on the schedule s whose run showed the
// candidate's finding f, with the schedule's seed and the following ones,
// and marks f Known when the reference fails the same check with the same
// verdict in one of them. Without a reference, or for a schedule the
// reference cannot play (options it does not honour), f stays as it is:
// the candidate's own.
func (c Config) judge(ctx context.Context, s *scenarios.Scenario, f Finding) Finding {
	ref := c.reference()
	if ref == "" || !f.Violation() {
		return f
	}
	rs := forReference(s, ref)
	seed := deref(s.Seed, 0)
	for i := range referenceReruns {
		o, err := runOnce(ctx, rs, ref, seed+uint64(i))
		if err != nil || ctx.Err() != nil {
			return f
		}
		if o.Same(f) {
			f.Known = true
			return f
		}
	}
	return f
}

// forReference is s for the reference design ref.
func forReference(s *scenarios.Scenario, ref string) *scenarios.Scenario {
	rs := clone(s)
	rs.Algorithm = scenarios.AlgorithmList{ref}
	rs.Expectations = nil
	return rs
}

// markKnown fills in v's comparison with the reference for the finding f.
func (c Config) markKnown(v *Violation, f Finding) {
	ref := c.reference()
	if ref == "" || !f.Known {
		return
	}
	v.Known = true
	v.KnownWhy = knownWhy(ref, f)
}

// knownWhy says, from the failed check and the fault kinds at its
// witness, why the reference fails the same check on the same schedule.
func knownWhy(ref string, f Finding) string {
	has := func(kinds ...vocab.Kind) bool {
		return slices.ContainsFunc(kinds, func(k vocab.Kind) bool { return slices.Contains(f.Kinds, string(k)) })
	}
	head := fmt.Sprintf("the reference %s fails %s too on this schedule: ", ref, orDash(f.Check))
	switch f.Check {
	case vocab.CheckExclusion:
		why := "a holder stayed inside past its lease (the hold, or a pause or delay after its validity check, outlasted what was left of the TTL) and the next holder came in"
		if has(vocab.KindPauseClient, vocab.KindDelay, vocab.KindClockSkewClient, vocab.KindClockJumpClient) {
			why = "a client paused or slowed past what was left of its lease still acts as the holder when it resumes, while the next holder is inside"
		}
		return head + why + "; no lock without fencing prevents that (the claim held: the lock kept its promise, the client acted outside it)"
	case vocab.CheckClaim:
		switch {
		case has(vocab.KindKillNode, vocab.KindFailover):
			return head + "the key was lost (a restart without data, or a failover to a replica that had not received it) while its holder's lease was still valid; a lock on one master, or on masters without durable keys, cannot keep it"
		case has(vocab.KindClockJumpNode, vocab.KindClockRateNode):
			return head + "a node's clock jumped or ran fast and expired the key early, while its holder's lease was still valid by the client's clock; any lock that trusts bounded clock drift breaks so"
		case has(vocab.KindClockJumpClient, vocab.KindClockSkewClient):
			return head + "a client's clock ran slow or jumped back, so it measured its lease as longer than the key lived; any lock that measures validity on the client's clock breaks so"
		}
		return head + "two clients' lease windows overlapped under these faults for the reference as well"
	case vocab.CheckFencing:
		return head + "the tokens did not grow or the resource accepted a write out of token order for the reference as well (a counter lost with its node repeats tokens)"
	case vocab.CheckLiveness:
		return head + "after the faults healed the reference's probe could not take the lock either (a key without expiry, or one left by a crashed holder, outlived the run)"
	}
	return head + "its runs were not judged either (" + orDash(f.Reason) + ")"
}

// Failing are the violations that fail an exploration: those the
// reference does not share, or every one when Strict (or without a
// reference).
func (r *Report) Failing() []Violation {
	if r.Strict || r.Reference == "" {
		return r.Violations
	}
	var out []Violation
	for _, v := range r.Violations {
		if !v.Known {
			out = append(out, v)
		}
	}
	return out
}

// KnownTag marks a violation line that the reference shares.
func (v Violation) KnownTag() string {
	if !v.Known {
		return ""
	}
	return "  (reference fails it too)"
}

// DifferentialLine says in one line how the violations split between the
// candidate's own and the family's ("" without a reference).
func (r *Report) DifferentialLine() string {
	if r.Reference == "" {
		return ""
	}
	known := len(r.Violations) - len(r.onlyCandidate())
	fails := "only the first fail the exploration"
	if r.Strict {
		fails = "--strict: both fail the exploration"
	}
	return fmt.Sprintf("against %s: %d distinct violations only %s has, %d that %s has too (%s)",
		r.Reference, len(r.onlyCandidate()), r.Algorithm, known, r.Reference, fails)
}

func (r *Report) onlyCandidate() []Violation {
	var out []Violation
	for _, v := range r.Violations {
		if !v.Known {
			out = append(out, v)
		}
	}
	return out
}

// differentialMarkdown is summary.md's section on the reference: which
// violations only the candidate has (the findings to act on) and which
// the reference shares, with why. "" without a reference.
func (r *Report) differentialMarkdown() string {
	if r.Reference == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Against the reference %s\n\n", r.Reference)
	fmt.Fprintf(&b, "Every schedule %s failed was run again on %s, with the schedule's seed and up to %d following ones; a violation %s also shows (the same check, the same verdict) is a known weakness of the family, the others are %s's own.",
		r.Algorithm, r.Reference, referenceReruns-1, r.Reference, r.Algorithm)
	if r.Strict {
		b.WriteString(" With --strict every violation fails the exploration.\n\n")
	} else {
		b.WriteString(" Only its own fail the exploration (--strict: all); the known ones are kept as found, not shrunk.\n\n")
	}
	own := r.onlyCandidate()
	fmt.Fprintf(&b, "**Only %s (%d):**\n\n", r.Algorithm, len(own))
	if len(own) == 0 {
		b.WriteString("- none\n")
	}
	for i, v := range r.Violations {
		if v.Known {
			continue
		}
		ref := ""
		if v.ReferenceReproduced != "" {
			ref = fmt.Sprintf("; %s on the shrunk scenario: failed %s", r.Reference, v.ReferenceReproduced)
		}
		fmt.Fprintf(&b, "- %d. `%s`, %d -> %d faults, reproduced %s%s\n", i+1, v.Signature, v.FaultsBefore, v.FaultsAfter, orDash(v.Reproduced.Virtual), ref)
	}
	fmt.Fprintf(&b, "\n**Known to the family, %s fails them too (%d):**\n\n", r.Reference, len(r.Violations)-len(own))
	for i, v := range r.Violations {
		if v.Known {
			fmt.Fprintf(&b, "- %d. `%s` (%d hits): %s\n", i+1, v.Signature, v.Hits, v.KnownWhy)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// ownFirst orders the violations found so that those the reference does
// not share are shrunk first (within MaxShrink), each group in order of
// discovery.
func ownFirst(list []*found) {
	slices.SortStableFunc(list, func(a, b *found) int {
		switch {
		case a.finding.Known == b.finding.Known:
			return 0
		case !a.finding.Known:
			return -1
		}
		return 1
	})
}

// shrinks reports whether a violation f found by cfg is shrunk at all: a
// known weakness of the family is kept as found unless Strict, since its
// shrunk form is the reference's, not the candidate's.
func (c Config) shrinks(f Finding) bool {
	return !f.Known || c.Strict
}

// referenceOnShrunk runs the reference on the shrunk scenario of v (read
// back from its file) Reruns times and records how often it failed the
// same check: a shrunk scenario that the reference fails too has lost
// what set the candidate apart, and says so.
func (fi *finisher) referenceOnShrunk(ctx context.Context, v *Violation, target Finding) {
	ref := fi.cfg.reference()
	if ref == "" || v.Known || v.Scenario == "" || v.ShrunkSignature == "" {
		return
	}
	s, err := scenarios.LoadFile(v.Scenario)
	if err != nil {
		return
	}
	rs := forReference(s, ref)
	if _, err := rs.Config(ref); err != nil {
		v.ReferenceReproduced = "not played: " + err.Error()
		return
	}
	k, _, err := fi.rule.reproduce(ctx, rs, ref, target)
	if err != nil {
		return
	}
	v.ReferenceReproduced = fmt.Sprintf("%d/%d", k, fi.rule.Reruns)
	if k > 0 {
		v.Note = strings.TrimSpace(v.Note + fmt.Sprintf(" The reference %s fails the shrunk scenario too (%s): the schedule as found is what sets %s apart.", ref, v.ReferenceReproduced, fi.cfg.Algorithm))
	}
}
