package history

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/locksim/locksim/vocab"
)

// encodesAlike fails t when appendFast writes op otherwise than
// encoding/json's Encoder; it reports whether appendFast wrote it.
func encodesAlike(t *testing.T, op *Op) bool {
	t.Helper()
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(op); err != nil {
		t.Fatal(err)
	}
	got, ok := appendFast([]byte("prefix"), op)
	if !ok {
		return false
	}
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("appendFast lost what it appended to: %q", got)
	}
	if g := got[len("prefix"):]; !bytes.Equal(g, want.Bytes()) {
		t.Fatalf("%#v:\nappendFast:    %s\nencoding/json: %s", op, g, want.Bytes())
	}
	return true
}

// committedHistories are the histories the repository holds: the
// example runs' (written by WriteJSONL) and the tests' fixtures.
func committedHistories(t *testing.T) (examples, fixtures []string) {
	examples, _ = filepath.Glob("../results/examples/runs/*/history.jsonl")
	a, _ := filepath.Glob("../checker/testdata/*.jsonl")
	b, _ := filepath.Glob("../run/testdata/*/history.jsonl")
	if len(examples) == 0 || len(a) == 0 || len(b) == 0 {
		t.Fatal("committed histories not found")
	}
	return examples, append(a, b...)
}

// Every record of every committed history appendFast writes as
// encoding/json does, nine in ten at least itself; WriteJSONL gives back
// each example run's file byte for byte.
func TestEncodeFastAgrees(t *testing.T) {
	examples, fixtures := committedHistories(t)
	ops, fast := 0, 0
	for _, f := range append(examples, fixtures...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadJSONL(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range h.Ops {
			ops++
			if encodesAlike(t, &h.Ops[i]) {
				fast++
			}
		}
	}
	if fast*10 < ops*9 {
		t.Errorf("appendFast wrote %d of %d committed records, want nine in ten at least", fast, ops)
	}
	for _, f := range examples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadJSONL(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := h.WriteJSONL(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Errorf("%s: WriteJSONL does not give the file back", f)
		}
	}
}

// The records appendFast leaves to encoding/json, and the strings it
// escapes itself.
func TestEncodeFastShapes(t *testing.T) {
	for _, op := range []Op{
		{Kind: KindFault, Client: -1, Target: &Target{Kind: vocab.Kind("partition"), Link: true}},
		{Kind: KindClock, Reading: 5, Rate: 1.5},
		{Kind: KindAcquire, Key: "clé"},
		{Kind: KindAcquire, Err: "bad\xffutf8"},
		{Kind: KindAcquire, Detail: "line\u2028sep"},
	} {
		if encodesAlike(t, &op) {
			t.Errorf("%#v: written by appendFast", op)
		}
	}
	for _, op := range []Op{
		{},
		{Kind: KindAcquire, Err: `dial "tcp" <a> & b\c` + "\n\r\t\b\f\x00\x01\x1f\x7f", Granted: []int{}},
		{Kind: KindEnter, Client: -3, Call: -1, Return: time.Hour, Outcome: Unknown, Fence: -9, Seq: 1 << 62, Unacked: true,
			AtEnd: true, Cut: true, NoTTL: true, Granted: []int{3, 0, -1}, Asked: 5, FaultID: 7, Node: 2},
	} {
		if !encodesAlike(t, &op) {
			t.Errorf("%#v: left to encoding/json", op)
		}
	}
}

// FuzzEncodeFast: on any record, what appendFast writes encoding/json
// writes alike.
func FuzzEncodeFast(f *testing.F) {
	f.Add("acquire", 0, "k", "", int64(1), int64(2), "ok", "c0-1", int64(0), "", "refused", []byte{1, 2}, false, 0.0, "")
	f.Add("fault", -1, "", "write", int64(-1), int64(9), "unknown", "", int64(-5), "pause <x> & \"y\"\n", "", []byte{}, true, 1.5, "é")
	f.Fuzz(func(t *testing.T, kind string, client int, key, mode string, call, ret int64, outcome, token string,
		fence int64, errs, reason string, granted []byte, flag bool, rate float64, value string) {
		op := Op{Kind: Kind(kind), Client: client, Key: key, Mode: mode, Call: time.Duration(call), Return: time.Duration(ret),
			Outcome: Outcome(outcome), Token: token, Fence: fence, Deadline: time.Duration(fence * 3), Reading: time.Duration(call ^ ret),
			Rate: rate, At: time.Duration(ret), Seq: fence + 1, Unacked: flag, Fault: errs, FaultID: client * 2, AtEnd: !flag, Cut: flag,
			Err: errs, Reason: reason, Asked: len(granted), TTL: time.Duration(call), WaitFrom: time.Duration(-call), Patience: time.Duration(fence),
			Event: reason, Detail: token, Source: mode, Node: client + 1, Value: value, NoTTL: flag, Role: key}
		for _, g := range granted {
			op.Granted = append(op.Granted, int(int8(g)))
		}
		encodesAlike(t, &op)
	})
}
