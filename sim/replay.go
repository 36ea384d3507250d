package sim

import (
	"bytes"
	"context"
	"fmt"
)

// Divergence is the first place where a rerun's history.jsonl differs from
// the first run's.
type Divergence struct {
	Run  int    // the rerun that differs (2 is the first rerun)
	Line int    // 1-based line of history.jsonl
	Want string // the first run's line ("" past its end)
	Got  string // the rerun's line ("" past its end)
}

func (d Divergence) String() string {
	return fmt.Sprintf("run %d differs from run 1 at history.jsonl line %d:\n  run 1: %s\n  run %d: %s",
		d.Run, d.Line, trimLine(d.Want), d.Run, trimLine(d.Got))
}

// trimLine shortens a history line for a message.
func trimLine(s string) string {
	const most = 240
	if s == "" {
		return "(no line)"
	}
	if len(s) > most {
		return s[:most] + "…"
	}
	return s
}

// Replayed is what Replay found.
type Replayed struct {
	Runs     int
	Distinct int         // distinct histories among the runs (1: exact replay)
	First    *Divergence // the first rerun that differs from run 1; nil when none does
}

// Replay runs spec n times in virtual time and compares the histories byte
// for byte, as history.jsonl holds them: a run in virtual time is a
// function of its configuration and seed, so every rerun must give the
// first run's bytes. It returns an error when a run failed or spec does not
// go in virtual time.
func Replay(ctx context.Context, spec Spec, n int) (Replayed, error) {
	r := Replayed{Runs: n}
	if err := spec.check(); err != nil {
		return r, err
	}
	if !spec.cfg.VirtualTime {
		return r, fmt.Errorf("%w: replay: runs only in virtual time (miniredis, an in-process design, no toxiproxy server)", ErrConfig)
	}
	if n < 2 {
		return r, fmt.Errorf("%w: replay: %d runs: need at least 2 to compare", ErrConfig, n)
	}
	var first []byte
	seen := map[string]bool{}
	for i := 1; i <= n; i++ {
		res, err := Run(ctx, spec)
		if err != nil {
			return r, fmt.Errorf("replay: run %d: %w", i, err)
		}
		if res.Incomplete {
			return r, fmt.Errorf("replay: run %d: interrupted", i)
		}
		var b bytes.Buffer
		if err := res.History.WriteJSONL(&b); err != nil {
			return r, fmt.Errorf("replay: run %d: %w", i, err)
		}
		seen[b.String()] = true
		if i == 1 {
			first = b.Bytes()
			continue
		}
		if d := firstDifference(first, b.Bytes()); d != nil && r.First == nil {
			d.Run = i
			r.First = d
		}
	}
	r.Distinct = len(seen)
	return r, nil
}

// firstDifference is the first line where a and b differ, nil when they
// are the same bytes.
func firstDifference(a, b []byte) *Divergence {
	if bytes.Equal(a, b) {
		return nil
	}
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; ; i++ {
		var x, y []byte
		inA, inB := i < len(la), i < len(lb)
		if inA {
			x = la[i]
		}
		if inB {
			y = lb[i]
		}
		// Past both ends cannot be reached: a and b differ in some line.
		if !bytes.Equal(x, y) || inA != inB || !inA {
			return &Divergence{Line: i + 1, Want: string(x), Got: string(y)}
		}
	}
}
