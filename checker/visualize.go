package checker

import (
	"errors"
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
)

// Visualize writes porcupine's HTML page for the exclusion check of h (the
// history r was computed from, with Config.Verbose): each client's
// operations at the resource, from send to reply, per key with porcupine's
// (partial) linearization, fault windows on a "faults" row, and each
// client's lease windows on that client's row, so that a reader sees who
// overlapped whom during which fault. Porcupine's clock is true time in
// nanoseconds; each operation's details give where it landed.
func Visualize(w io.Writer, h history.History, r Result) error {
	if r.info == nil {
		return errors.New("checker: no linearization info: check with Config.Verbose (and a usable resource log)")
	}
	v := Read(h)
	if v.Fenced != r.fenced {
		return errors.New("checker: the history is not the one the result was checked from")
	}
	var anns []porcupine.Annotation
	for _, f := range v.Faults {
		anns = append(anns, porcupine.Annotation{
			Tag:             "faults",
			Start:           int64(f.Start),
			End:             int64(f.End),
			Description:     f.Desc,
			Details:         fmt.Sprintf("fault %d from %v to %v", f.ID, f.Start, f.End),
			BackgroundColor: "#f6d5d5",
		})
	}
	for _, l := range v.Leases {
		mode := ""
		if l.Read {
			mode = " (read)"
		}
		desc := "lease " + l.Token
		if l.Fence > 0 {
			desc += fmt.Sprintf(" fence %d", l.Fence)
		}
		anns = append(anns, porcupine.Annotation{
			ClientId:        l.Client,
			Start:           int64(l.Start),
			End:             int64(l.End),
			Description:     desc,
			Details:         fmt.Sprintf("key %q%s: relied on from %v to %v (%s)", l.Key, mode, l.Start, l.End, l.Ended),
			BackgroundColor: "#dde8f6",
		})
	}
	info := *r.info // AddAnnotations appends; keep r reusable
	info.AddAnnotations(anns)
	return porcupine.Visualize(clientViewModel(r.fenced), info, w)
}
