package history

import (
	"strings"
	"time"
)

// SentinelFailover is one failover episode of one master, read from the
// sentinels' events (KindSentinel): from the first sentinel that called the
// master down to the promotion, or to its end without one.
type SentinelFailover struct {
	Master string        // the sentinels' name for it (locksim-n0)
	Down   time.Duration // first +sdown of the master
	ODown  time.Duration // first +odown (a quorum agreed); 0 when none
	// Tries counts +try-failover (a sentinel starting an election); more
	// than one means a split vote or an aborted attempt was retried.
	Tries int
	// Switch is the first +switch-master (the promotion, announced); 0
	// when the episode ended without one. NewMaster is its address.
	Switch    time.Duration
	NewMaster string
	// End is when the episode ended: the switch, or the master being
	// seen up again by every sentinel that had called it down (-sdown),
	// with EndedBy saying which ("switch-master", "recovered"); both zero
	// while it was still going when the history ends.
	End     time.Duration
	EndedBy string
	// Aborts counts failover attempts that gave up (-failover-abort-*,
	// +failover-end-for-timeout).
	Aborts int
}

// SentinelFailovers reads the failover episodes in h, in order of their
// start. A master's second episode (say the promoted replica called down
// later) is a new entry.
func SentinelFailovers(h History) []SentinelFailover {
	var out []SentinelFailover
	open := map[string]int{}               // master -> index in out
	downBy := map[string]map[string]bool{} // master -> sentinels calling it down
	for _, op := range h.Ops {
		if op.Kind != KindSentinel {
			continue
		}
		f := strings.Fields(op.Detail)
		master := ""
		switch {
		case len(f) >= 2 && f[0] == "master":
			master = f[1]
		case op.Event == "+switch-master" && len(f) >= 1:
			master = f[0]
		case len(f) >= 6 && f[4] == "@":
			master = f[5] // "slave ip:port ip port @ master ip port"
		}
		if master == "" {
			continue
		}
		i, ok := open[master]
		switch op.Event {
		case "+sdown":
			if f[0] != "master" {
				continue
			}
			if !ok {
				out = append(out, SentinelFailover{Master: master, Down: op.Call})
				i, ok = len(out)-1, true
				open[master] = i
				downBy[master] = map[string]bool{}
			}
			downBy[master][op.Source] = true
		case "-sdown":
			if !ok || f[0] != "master" {
				continue
			}
			delete(downBy[master], op.Source)
			if len(downBy[master]) == 0 {
				out[i].End, out[i].EndedBy = op.Call, "recovered"
				delete(open, master)
			}
		case "+odown":
			if ok && out[i].ODown == 0 {
				out[i].ODown = op.Call
			}
		case "+try-failover":
			if ok {
				out[i].Tries++
			}
		case "+failover-end-for-timeout", "-failover-abort-no-good-slave", "-failover-abort-not-elected", "-failover-abort-slave-timeout":
			if ok {
				out[i].Aborts++
			}
		case "+switch-master":
			if !ok {
				continue
			}
			if len(f) == 5 {
				out[i].NewMaster = f[3] + ":" + f[4]
			}
			out[i].Switch, out[i].End, out[i].EndedBy = op.Call, op.Call, "switch-master"
			delete(open, master)
		}
	}
	return out
}
