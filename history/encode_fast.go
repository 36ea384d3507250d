package history

import (
	"strconv"
	"time"
)

// appendFast appends op as encoding/json's Encoder writes it (the object
// and its newline) when op has the shape most records have: no fault
// target, no clock rate, strings of ASCII. It returns false for
// anything else, b then in any state, and the caller encodes op with
// encoding/json. So WriteJSONL's bytes are encoding/json's on every
// record (TestEncodeFastAgrees, FuzzEncodeFast), written without
// reflection. The fields go in Op's order, omitempty as its tags say.
func appendFast(b []byte, op *Op) ([]byte, bool) {
	if op.Target != nil || op.Rate != 0 {
		return b, false
	}
	e := fastEncoder{b: b, ok: true}
	e.b = append(e.b, `{"kind":`...)
	e.str(string(op.Kind))
	e.b = append(e.b, `,"client":`...)
	e.b = strconv.AppendInt(e.b, int64(op.Client), 10)
	e.optStr(`,"key":`, op.Key)
	e.optStr(`,"mode":`, op.Mode)
	e.b = append(e.b, `,"call":`...)
	e.b = strconv.AppendInt(e.b, int64(op.Call), 10)
	e.b = append(e.b, `,"return":`...)
	e.b = strconv.AppendInt(e.b, int64(op.Return), 10)
	e.b = append(e.b, `,"outcome":`...)
	e.str(string(op.Outcome))
	e.optStr(`,"token":`, op.Token)
	e.optInt(`,"fence":`, op.Fence)
	e.optDur(`,"deadline":`, op.Deadline)
	e.optDur(`,"reading":`, op.Reading)
	e.optDur(`,"at":`, op.At)
	e.optInt(`,"seq":`, op.Seq)
	e.optBool(`,"unacked":true`, op.Unacked)
	e.optStr(`,"fault":`, op.Fault)
	e.optInt(`,"fault_id":`, int64(op.FaultID))
	e.optBool(`,"at_end":true`, op.AtEnd)
	e.optBool(`,"cut":true`, op.Cut)
	e.optStr(`,"err":`, op.Err)
	e.optStr(`,"reason":`, op.Reason)
	if len(op.Granted) > 0 {
		e.b = append(e.b, `,"granted":[`...)
		for i, n := range op.Granted {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = strconv.AppendInt(e.b, int64(n), 10)
		}
		e.b = append(e.b, ']')
	}
	e.optInt(`,"asked":`, int64(op.Asked))
	e.optDur(`,"ttl":`, op.TTL)
	e.optDur(`,"wait_from":`, op.WaitFrom)
	e.optDur(`,"patience":`, op.Patience)
	e.optStr(`,"event":`, op.Event)
	e.optStr(`,"detail":`, op.Detail)
	e.optStr(`,"source":`, op.Source)
	e.optInt(`,"node":`, int64(op.Node))
	e.optStr(`,"value":`, op.Value)
	e.optBool(`,"no_ttl":true`, op.NoTTL)
	e.optStr(`,"role":`, op.Role)
	e.b = append(e.b, "}\n"...)
	return e.b, e.ok
}

// fastEncoder builds one line; ok turns false at the first string it
// leaves to encoding/json.
type fastEncoder struct {
	b  []byte
	ok bool
}

func (e *fastEncoder) optStr(name, s string) {
	if s != "" {
		e.b = append(e.b, name...)
		e.str(s)
	}
}

func (e *fastEncoder) optInt(name string, n int64) {
	if n != 0 {
		e.b = append(e.b, name...)
		e.b = strconv.AppendInt(e.b, n, 10)
	}
}

func (e *fastEncoder) optDur(name string, d time.Duration) { e.optInt(name, int64(d)) }

// optBool appends field, its name with the value true, when v.
func (e *fastEncoder) optBool(field string, v bool) {
	if v {
		e.b = append(e.b, field...)
	}
}

// str appends s quoted as encoding/json quotes it with HTML escaping on
// (the Encoder's default): ASCII from space on as it is but for '"' and
// '\\' (escaped) and '<', '>', '&' (\u003c, \u003e, \u0026); \b, \f, \n,
// \r, \t escaped by name, the other control characters as \u00XX. A byte past
// ASCII (whose UTF-8 encoding/json checks, and whose U+2028 and U+2029 it
// escapes) makes the line encoding/json's.
func (e *fastEncoder) str(s string) {
	const hex = "0123456789abcdef"
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		if c >= 0x80 {
			e.ok = false
			return
		}
		e.b = append(e.b, s[start:i]...)
		switch c {
		case '"', '\\':
			e.b = append(e.b, '\\', c)
		case '\b':
			e.b = append(e.b, '\\', 'b')
		case '\f':
			e.b = append(e.b, '\\', 'f')
		case '\n':
			e.b = append(e.b, '\\', 'n')
		case '\r':
			e.b = append(e.b, '\\', 'r')
		case '\t':
			e.b = append(e.b, '\\', 't')
		default:
			e.b = append(e.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}
