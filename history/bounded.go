package history

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Bounds caps what ReadJSONLBounded accepts, so that a history larger
// than any run makes is refused while it is read, before it takes the
// machine's memory. A zero field is no bound.
type Bounds struct {
	// Ops is the most operations (lines) a history may hold.
	Ops int
	// Clients is the number of client indices a history may name
	// (0..Clients-1).
	Clients int
}

// BoundError is a history over one of its Bounds: Limit names the bound
// ("ops", "clients"), Max its value, Line the line that went over.
type BoundError struct {
	Limit string
	Max   int
	Line  int
	Value int
}

func (e *BoundError) Error() string {
	switch e.Limit {
	case "clients":
		return fmt.Sprintf("history line %d: client %d: at most %d clients (0 to %d) fit this machine's memory for a check", e.Line, e.Value, e.Max, e.Max-1)
	}
	return fmt.Sprintf("history line %d: more than %d operations, the most a run on this machine records", e.Line, e.Max)
}

// checkEvery is how many lines ReadJSONLBounded reads between looks at
// its context.
const checkEvery = 1024

// ReadJSONLBounded reads a history written by WriteJSONL, as ReadJSONL
// does, and stops with a *BoundError at the first line over b, and with
// the context's error once ctx ends. Errors name the line.
func ReadJSONLBounded(ctx context.Context, r io.Reader, b Bounds) (History, error) {
	var h History
	if n := countLines(r); n > 0 {
		if b.Ops > 0 {
			n = min(n, b.Ops)
		}
		h.Ops = make([]Op, 0, n)
	}
	in := interner{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if line%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return History{}, fmt.Errorf("history line %d: %w", line, err)
			}
		}
		bs := sc.Bytes()
		if len(bs) == 0 {
			continue
		}
		if b.Ops > 0 && len(h.Ops) >= b.Ops {
			return History{}, &BoundError{Limit: "ops", Max: b.Ops, Line: line, Value: len(h.Ops) + 1}
		}
		h.Ops = append(h.Ops, Op{})
		op := &h.Ops[len(h.Ops)-1]
		if !decodeFast(bs, op, in) {
			*op = Op{}
			if err := json.Unmarshal(bs, op); err != nil {
				return History{}, fmt.Errorf("history line %d: %w", line, err)
			}
			in.op(op)
		}
		if err := op.validate(); err != nil {
			return History{}, fmt.Errorf("history line %d: %w", line, err)
		}
		if b.Clients > 0 && op.Client >= b.Clients {
			return History{}, &BoundError{Limit: "clients", Max: b.Clients, Line: line, Value: op.Client}
		}
	}
	if err := sc.Err(); err != nil {
		return History{}, fmt.Errorf("history: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return History{}, fmt.Errorf("history: %w", err)
	}
	return h, nil
}

// countLines counts the lines left in r when r can seek (a history file),
// and puts r back where it was, so that the history's slice is allocated
// once at its size rather than grown and copied line by line; 0 when r
// cannot seek or the count fails.
func countLines(r io.Reader) int {
	s, ok := r.(io.ReadSeeker)
	if !ok {
		return 0
	}
	start, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		k, err := s.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if k > 0 {
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			n = 0
			break
		}
	}
	if last != '\n' {
		n++
	}
	if _, err := s.Seek(start, io.SeekStart); err != nil {
		return 0
	}
	return n
}

// interner shares one string between the operations that repeat it (the
// lock key, the reason, the mode, the source), so that a long history
// holds each such value once rather than once per line.
type interner map[string]string

// internMax bounds the values an interner keeps, so that a history whose
// keys are all different costs no more than it would without one.
const internMax = 1 << 14

func (in interner) op(op *Op) {
	op.Key = in.str(op.Key)
	op.Mode = in.str(op.Mode)
	op.Reason = in.str(op.Reason)
	op.Source = in.str(op.Source)
	op.Event = in.str(op.Event)
}

func (in interner) str(s string) string {
	if s == "" {
		return s
	}
	if v, ok := in[s]; ok {
		return v
	}
	if len(in) < internMax {
		in[s] = s
	}
	return s
}
