package checker

import (
	"errors"
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/sim"
)

// Visualize writes porcupine's HTML page for the exclusion check of h (the
// history r was computed from, with Config.Verbose): the resource's
// operations per key with porcupine's (partial) linearization, fault
// windows on a "faults" row, and each client's lease claim windows on that
// client's row, so that a reader sees who overlapped whom during which
// fault.
//
// Porcupine's clock is true time (see clock), with operations applied at
// the same instant spread over distinct slots; the true times are in each
// annotation's tooltip and each operation's metadata.
func Visualize(w io.Writer, h sim.History, r Result) error {
	if r.info == nil {
		return errors.New("checker: no linearization info: check with Config.Verbose (and a usable resource log)")
	}
	log, err := resourceOps(h, Config{})
	if err != nil {
		return fmt.Errorf("checker: %w", err)
	}
	if log.fenced != r.fenced {
		return errors.New("checker: the history is not the one the result was checked from")
	}
	ax := log.clock
	var anns []porcupine.Annotation
	for _, f := range faultWindows(h) {
		anns = append(anns, porcupine.Annotation{
			Tag:             "faults",
			Start:           ax.before(f.Start),
			End:             ax.after(f.End),
			Description:     f.Desc,
			Details:         fmt.Sprintf("fault %d from %v to %v", f.ID, f.Start, f.End),
			BackgroundColor: "#f6d5d5",
		})
	}
	ls, _ := leases(h, historyEnd(h))
	for _, l := range ls {
		mode := ""
		if l.read {
			mode = " (read)"
		}
		anns = append(anns, porcupine.Annotation{
			ClientId:        l.client,
			Start:           ax.before(l.start),
			End:             ax.after(l.end),
			Description:     fmt.Sprintf("lease %s fence %d", l.token, l.fence),
			Details:         fmt.Sprintf("key %q%s: claimed from %v to %v", l.key, mode, l.start, l.end),
			BackgroundColor: "#dde8f6",
		})
	}
	info := *r.info // AddAnnotations appends; keep r reusable
	info.AddAnnotations(anns)
	return porcupine.Visualize(exclusionModel(r.fenced), info, w)
}
