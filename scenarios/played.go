package scenarios

import (
	"fmt"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
)

// Unplayed says, one phrase each, why a run of s with algo did not play
// the scenario, from its history alone (so that `locksim check` of a run
// directory says the same as the run): a fault it needs never acted (it
// never started, its start failed, or it did not do what its kind
// promises: checker.FaultsUnacted), or a requirement did not happen. A
// fault marked optional may stay idle. Empty: the run played it.
func (s *Scenario) Unplayed(algo string, h history.History) []string {
	return s.UnplayedView(algo, h, nil)
}

// UnplayedView is Unplayed with h's View when the caller has read it
// (checker.CheckWithWarningsView); nil: it is read when a requirement
// needs it.
func (s *Scenario) UnplayedView(algo string, h history.History, v *checker.View) []string {
	needed := func(id int) bool {
		if id < 1 || id > len(s.Faults) {
			return false // a random nemesis's own rounds
		}
		o := s.Faults[id-1].Optional
		return o == nil || !*o
	}
	recorded := map[int]bool{}
	for _, op := range h.Ops {
		if op.Kind == history.KindFault {
			recorded[op.FaultID] = true
		}
	}
	var out []string
	for id := 1; id <= len(s.Faults); id++ {
		if !recorded[id] && needed(id) {
			out = append(out, fmt.Sprintf("fault %d %s never acted: it never started (its trigger never came, or its until came first)", id, s.Faults[id-1].Kind))
		}
	}
	for _, u := range checker.FaultsUnacted(h) {
		if needed(u.FaultID) {
			out = append(out, u.String())
		}
	}
	return append(out, s.unmet(algo, h, v)...)
}
