package scenarios

import (
	"fmt"
	"github.com/locksim/locksim/lock"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
)

// Requirement is one thing that must have happened for a run to count as
// playing the scenario (require: in a file): the dangerous moment the
// scenario is about. A run in which it did not happen tested nothing, so
// it is "not played", whatever its verdict; a safe verdict then means the
// dangerous moment was reached and the design came through it.
//
//	require:
//	  - {client: 1, event: acquire, during: 2}               # client 1 acquired while fault 2 was on
//	  - {client: 0, event: lease-end, while: {client: 0, in: section}} # client 0 was still inside when its lease ran out
//	  - {event: acquire, outcome: fail, while: {in: lease}}   # someone was refused while another held a lease
type Requirement struct {
	// Client is whose event it is; any client when left out.
	Client *int `yaml:"client,omitempty"`
	// Event is what happened: an operation (acquire, extend, release,
	// check, enter, exit, write) or lease-end (a lease window ran out by
	// its validity, not by a release).
	Event string `yaml:"event"`
	// Outcome of the operation: ok, fail or unknown [ok]; not for
	// lease-end.
	Outcome string `yaml:"outcome,omitempty"`
	// During is a fault, by its 1-based place in faults:, that was on at
	// the event's instant.
	During *int `yaml:"during,omitempty"`
	// While is what another client (or the same one, named) was doing at
	// that instant.
	While *Whilst `yaml:"while,omitempty,flow"`
	// Designs limits the requirement to these designs (every design when
	// left out): a moment only some designs can reach.
	Designs []string `yaml:"designs,omitempty,flow"`
}

// Whilst is a client's state at a requirement's instant.
type Whilst struct {
	// Client is whose state; any client other than the event's when left
	// out.
	Client *int `yaml:"client,omitempty"`
	// In is lease (it held a lease window) or section (it was inside at
	// the resource).
	In string `yaml:"in"`
}

// The events a requirement can name, and the instant each happens at:
// acquires and extends when the reply came (the client knows of them only
// then), releases and checks when called, resource operations when they
// landed, lease-end when the window ran out.
var requireEvents = []string{"acquire", "extend", "release", "check", "enter", "exit", "write", eventLeaseEnd}

const eventLeaseEnd = "lease-end"

var requireOutcomes = []string{string(history.OK), string(history.Fail), string(history.Unknown)}

// String says the requirement in words, for a run's summary.
func (r Requirement) String() string {
	who := "any client"
	if r.Client != nil {
		who = fmt.Sprintf("client %d", *r.Client)
	}
	s := who + " " + r.Event
	if r.Outcome != "" && r.Outcome != string(history.OK) {
		s += " " + r.Outcome
	}
	if r.During != nil {
		s += fmt.Sprintf(" during fault %d", *r.During)
	}
	if r.While != nil {
		other := "another client"
		if r.While.Client != nil {
			other = fmt.Sprintf("client %d", *r.While.Client)
		}
		s += fmt.Sprintf(" while %s was in its %s", other, r.While.In)
	}
	return s
}

// checkRequirement validates require[i].
func (s *Scenario) checkRequirement(i int) error {
	r := s.Require[i]
	base := fmt.Sprintf("require[%d]", i)
	clients := s.clients()
	switch {
	case r.Event == "":
		return s.errf(base, "missing event (known: %s)", strings.Join(requireEvents, ", "))
	case !slices.Contains(requireEvents, r.Event):
		return s.errf(base+".event", "unknown event; want one of %s (%s)", strings.Join(requireEvents, ", "), shown(r.Event))
	case r.Outcome != "" && !slices.Contains(requireOutcomes, r.Outcome):
		return s.errf(base+".outcome", "unknown outcome; want ok, fail or unknown (%s)", shown(r.Outcome))
	case r.Outcome != "" && r.Event == eventLeaseEnd:
		return s.errf(base+".outcome", "a lease-end has no outcome (%s)", r.Outcome)
	case r.Client != nil && (*r.Client < 0 || *r.Client >= clients):
		return s.errf(base+".client", "out of range: clients are 0..%d (%d)", clients-1, *r.Client)
	case r.During != nil && (*r.During < 1 || *r.During > len(s.Faults)):
		return s.errf(base+".during", "no such fault: faults are 1..%d, in the order listed (%d)", len(s.Faults), *r.During)
	}
	if w := r.While; w != nil {
		switch {
		case w.In != "lease" && w.In != "section":
			return s.errf(base+".while.in", "want lease or section (%s)", shown(w.In))
		case w.Client != nil && (*w.Client < 0 || *w.Client >= clients):
			return s.errf(base+".while.client", "out of range: clients are 0..%d (%d)", clients-1, *w.Client)
		case w.Client == nil && clients < 2:
			return s.errf(base+".while", "another client's state needs at least 2 clients (%d)", clients)
		}
	}
	// The designs the file names, whether or not each can run here: a
	// design unavailable on this machine is skipped, not a bad file.
	declared := []string(s.Algorithm)
	if len(declared) == 0 {
		declared = lock.Names()
	}
	for j, d := range r.Designs {
		if !slices.Contains(declared, d) {
			return s.errf(fmt.Sprintf("%s.designs[%d]", base, j), "not a design this scenario runs (%s)", shown(d))
		}
	}
	return nil
}

// unmet lists the requirements that apply to algo and did not happen in h.
// read is h's View, nil when it is still to be read.
func (s *Scenario) unmet(algo string, h history.History, read *checker.View) []string {
	if len(s.Require) == 0 {
		return nil
	}
	if read == nil {
		v := checker.Read(h)
		read = &v
	}
	v := *read
	var out []string
	for i, r := range s.Require {
		if len(r.Designs) > 0 && !names(r.Designs, algo) {
			continue
		}
		if !r.met(h, v) {
			out = append(out, fmt.Sprintf("requirement %d (%s) did not happen", i+1, r))
		}
	}
	return out
}

// met reports whether some event in the history satisfies r.
func (r Requirement) met(h history.History, v checker.View) bool {
	for _, ev := range r.events(h, v) {
		if r.During != nil && !faultOn(v, *r.During, ev.at) {
			continue
		}
		if r.While != nil && !r.While.holds(v, ev.client, ev.at) {
			continue
		}
		return true
	}
	return false
}

type event struct {
	client int
	at     time.Duration
}

func (r Requirement) events(h history.History, v checker.View) []event {
	var out []event
	mine := func(c int) bool { return r.Client == nil || *r.Client == c }
	if r.Event == eventLeaseEnd {
		for _, w := range v.Leases {
			if mine(w.Client) && w.Ended == checker.EndExpired {
				out = append(out, event{w.Client, w.End})
			}
		}
		return out
	}
	outcome := history.Outcome(r.Outcome)
	if outcome == "" {
		outcome = history.OK
	}
	for _, op := range h.Ops {
		if string(op.Kind) != r.Event || op.Client == history.NoClient || !mine(op.Client) || op.Outcome != outcome {
			continue
		}
		switch op.Kind {
		case history.KindAcquire, history.KindExtend:
			out = append(out, event{op.Client, op.Return})
		case history.KindEnter, history.KindExit, history.KindWrite:
			if op.Seq > 0 {
				out = append(out, event{op.Client, op.At})
			}
		default:
			out = append(out, event{op.Client, op.Call})
		}
	}
	return out
}

// faultOn reports whether fault id (1-based) was on at t.
func faultOn(v checker.View, id int, t time.Duration) bool {
	for _, f := range v.Faults {
		if f.ID == id && f.Start <= t && t <= f.End {
			return true
		}
	}
	return false
}

// holds reports whether the named client (or, unnamed, another client than
// self) was in its lease or its section at t.
func (w Whilst) holds(v checker.View, self int, t time.Duration) bool {
	who := func(c int) bool {
		if w.Client != nil {
			return c == *w.Client
		}
		return c != self
	}
	if w.In == "lease" {
		for _, l := range v.Leases {
			if who(l.Client) && l.Start <= t && (t < l.End || l.Ended == checker.EndOpen) {
				return true
			}
		}
		return false
	}
	for _, s := range v.Sections {
		// a fenced section is its run of accepted writes, ends included
		if who(s.Client) && s.Start <= t && (t < s.End || s.Open || (v.Fenced && t == s.End)) {
			return true
		}
	}
	return false
}
