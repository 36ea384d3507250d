package scenarios

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim"
)

// scratch: not committed. Runs built-ins through sim.Run and a crude analysis.
func TestScratchSweep(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	only := os.Getenv("SCRATCH_SCEN")
	onlyAlgo := os.Getenv("SCRATCH_ALGO")
	sem := make(chan struct{}, 4)
	for _, s := range Builtin() {
		if only != "" && !strings.Contains(s.Name, only) {
			continue
		}
		for _, algo := range s.Algorithms() {
			if onlyAlgo != "" && algo != onlyAlgo {
				continue
			}
			s, algo := s, algo
			t.Run(s.Name+"/"+algo, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				cfg, err := s.Config(algo)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				excl, claim, live := analyse(res.History)
				e, _ := s.Expect(algo)
				got := "safe"
				if excl != "" || claim != "" {
					got = "unsafe"
				} else if live != "" {
					got = "deadlock"
				}
				mark := "OK "
				if e.Asserted() && string(e.Verdict) != got {
					mark = "BAD"
				}
				if e.Asserted() && e.Checks != nil {
					if v, ok := e.Checks["exclusion"]; ok && (v == Unsafe) != (excl != "") {
						mark = "BADX"
					}
					if v, ok := e.Checks["claim"]; ok && (v == Unsafe) != (claim != "") {
						mark = "BADC"
					}
				}
				fmt.Printf("%s %-42s %-15s want=%-8s got=%-8s excl=%q claim=%q live=%q notes=%q\n", mark, s.Name, algo, e.Verdict, got, excl, claim, live, res.Notes)
			})
		}
	}
}

func analyse(h sim.History) (excl, claim, live string) {
	type iv struct {
		c        int
		from, to int64
		tok      string
	}
	// exclusion via resource serial order: enter/exit or accepted writes
	ops := append([]sim.Op(nil), h.Ops...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Seq < ops[j].Seq })
	inside := map[string]int{} // token -> client
	var lastTok string
	seenTok := map[string]bool{}
	for _, o := range ops {
		if o.Seq == 0 {
			continue
		}
		switch o.Kind {
		case sim.KindEnter:
			if len(inside) > 0 && excl == "" {
				excl = fmt.Sprintf("c%d enters while %v inside at seq %d", o.Client, inside, o.Seq)
			}
			inside[o.Token] = o.Client
		case sim.KindExit:
			delete(inside, o.Token)
		case sim.KindWrite:
			if o.Outcome != sim.OK {
				continue
			}
			if o.Token != lastTok && seenTok[o.Token] && excl == "" {
				excl = fmt.Sprintf("fenced: token %s resumes after %s at seq %d", o.Token, lastTok, o.Seq)
			}
			seenTok[o.Token] = true
			lastTok = o.Token
		}
	}
	// claim windows: a client's release closes its latest acquire
	var ws []iv
	open := map[int]int{} // client -> index in ws
	byCall := append([]sim.Op(nil), h.Ops...)
	sort.SliceStable(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
	for _, o := range byCall {
		switch {
		case o.Kind == sim.KindAcquire && o.Outcome == sim.OK:
			end := int64(1 << 62)
			if o.ValidUntil != 0 {
				end = int64(o.ValidUntil)
			}
			ws = append(ws, iv{o.Client, int64(o.Return), end, o.Token})
			open[o.Client] = len(ws) - 1
		case o.Kind == sim.KindRelease:
			if i, ok := open[o.Client]; ok {
				if int64(o.Call) < ws[i].to {
					ws[i].to = int64(o.Call)
				}
				delete(open, o.Client)
			}
		}
	}
	for i := range ws {
		for j := range ws {
			if i < j && ws[i].c != ws[j].c && ws[i].from < ws[j].to && ws[j].from < ws[i].to && claim == "" {
				claim = fmt.Sprintf("c%d %v & c%d %v", ws[i].c, ws[i], ws[j].c, ws[j])
			}
		}
	}
	for _, o := range h.Ops {
		if o.Kind == sim.KindProbe && o.Outcome != sim.OK {
			live = o.Err
		}
	}
	return
}
