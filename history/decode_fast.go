package history

import (
	"time"
)

// decodeFast reads one history line into op, which must be zero, when the
// line has the shape WriteJSONL gives it: one object with no whitespace,
// known field names as WriteJSONL spells them, plain ASCII strings without
// escapes, integers without fraction or exponent. It returns false, with
// op in any state, for anything else (a fault's target, a clock's rate, an
// escape, null, a misspelled or unknown field, bad JSON): the caller then
// decodes the line with encoding/json, whose result and errors are what a
// line decodes to. So the two agree on every line decodeFast accepts
// (FuzzDecodeFast), and a history of millions of lines is read without
// reflection. Repeated strings (the key, the reason, the mode, the
// source, the event) are shared through in without allocating.
func decodeFast(b []byte, op *Op, in interner) bool {
	d := fastDecoder{b: b}
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return d.end()
	}
	for {
		name, ok := d.str()
		if !ok || !d.byte(':') {
			return false
		}
		if !d.field(name, op, in) {
			return false
		}
		if d.byte(',') {
			continue
		}
		if d.byte('}') {
			return d.end()
		}
		return false
	}
}

// fastDecoder walks one line; i is the next byte to read.
type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end: nothing follows the object.
func (d *fastDecoder) end() bool { return d.i == len(d.b) }

// str reads a string of printable ASCII without escapes, returning its
// bytes (a slice of the line).
func (d *fastDecoder) str() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// int reads an integer as JSON writes one (-?(0|[1-9][0-9]*)) that fits
// an int64, and refuses a fraction or an exponent after it.
func (d *fastDecoder) int() (int64, bool) {
	neg := d.byte('-')
	start := d.i
	var n uint64
	for ; d.i < len(d.b); d.i++ {
		c := d.b[d.i]
		if c < '0' || c > '9' {
			break
		}
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	digits := d.i - start
	switch {
	case digits == 0, digits > 1 && d.b[start] == '0':
		return 0, false
	case d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E'):
		return 0, false
	case neg && n > 1<<63, !neg && n > 1<<63-1:
		return 0, false
	case neg:
		return -int64(n), true
	}
	return int64(n), true
}

// small reads an integer that fits an int on every platform Go runs
// locksim on (32 bits at least).
func (d *fastDecoder) small() (int, bool) {
	n, ok := d.int()
	if !ok || n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return int(n), true
}

func (d *fastDecoder) bool() (bool, bool) {
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// ints reads an array of integers; an empty one is an empty slice, as
// encoding/json makes it.
func (d *fastDecoder) ints() ([]int, bool) {
	if !d.byte('[') {
		return nil, false
	}
	out := []int{}
	if d.byte(']') {
		return out, true
	}
	for {
		n, ok := d.small()
		if !ok {
			return nil, false
		}
		out = append(out, n)
		if d.byte(',') {
			continue
		}
		if d.byte(']') {
			return out, true
		}
		return nil, false
	}
}

// field reads the value of the field name into op.
func (d *fastDecoder) field(name []byte, op *Op, in interner) bool {
	var ok bool
	switch string(name) {
	case "kind":
		var s []byte
		if s, ok = d.str(); ok {
			if k, known := kinds[string(s)]; known {
				op.Kind = k
			} else {
				op.Kind = Kind(s)
			}
		}
	case "outcome":
		var s []byte
		if s, ok = d.str(); ok {
			if o, known := outcomes[string(s)]; known {
				op.Outcome = o
			} else {
				op.Outcome = Outcome(s)
			}
		}
	case "client":
		op.Client, ok = d.small()
	case "key":
		op.Key, ok = d.shared(in)
	case "mode":
		op.Mode, ok = d.shared(in)
	case "reason":
		op.Reason, ok = d.shared(in)
	case "source":
		op.Source, ok = d.shared(in)
	case "event":
		op.Event, ok = d.shared(in)
	case "role":
		op.Role, ok = d.shared(in)
	case "token":
		op.Token, ok = d.string()
	case "fault":
		op.Fault, ok = d.string()
	case "err":
		op.Err, ok = d.string()
	case "detail":
		op.Detail, ok = d.string()
	case "value":
		op.Value, ok = d.string()
	case "call":
		op.Call, ok = d.duration()
	case "return":
		op.Return, ok = d.duration()
	case "deadline":
		op.Deadline, ok = d.duration()
	case "reading":
		op.Reading, ok = d.duration()
	case "at":
		op.At, ok = d.duration()
	case "ttl":
		op.TTL, ok = d.duration()
	case "wait_from":
		op.WaitFrom, ok = d.duration()
	case "patience":
		op.Patience, ok = d.duration()
	case "fence":
		op.Fence, ok = d.int()
	case "seq":
		op.Seq, ok = d.int()
	case "fault_id":
		op.FaultID, ok = d.small()
	case "asked":
		op.Asked, ok = d.small()
	case "node":
		op.Node, ok = d.small()
	case "unacked":
		op.Unacked, ok = d.bool()
	case "at_end":
		op.AtEnd, ok = d.bool()
	case "cut":
		op.Cut, ok = d.bool()
	case "no_ttl":
		op.NoTTL, ok = d.bool()
	case "granted":
		op.Granted, ok = d.ints()
	}
	// Any other name (target, rate, one spelt otherwise) is not read
	// here: ok stays false.
	return ok
}

func (d *fastDecoder) duration() (time.Duration, bool) {
	n, ok := d.int()
	return time.Duration(n), ok
}

func (d *fastDecoder) string() (string, bool) {
	s, ok := d.str()
	return string(s), ok
}

// shared reads a string the interner keeps one copy of.
func (d *fastDecoder) shared(in interner) (string, bool) {
	s, ok := d.str()
	if !ok {
		return "", false
	}
	if v, found := in[string(s)]; found {
		return v, true
	}
	return in.str(string(s)), true
}
