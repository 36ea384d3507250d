package history_test

import (
	"bytes"
	"testing"

	"github.com/locksim/locksim/history"
)

// FuzzReadJSONL: the history reader never panics, and whatever it accepts
// survives a write/read round trip unchanged.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"kind":"acquire","client":0,"key":"k","call":1,"return":2,"outcome":"ok","token":"c0-1","deadline":500}` + "\n"))
	f.Add([]byte(`{"kind":"fault","client":-1,"call":0,"return":9,"outcome":"ok","fault":"pause-client 0","fault_id":1}` + "\n"))
	f.Add([]byte("{}\n\n{\"kind\":\"x\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := history.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := h.WriteJSONL(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := history.ReadJSONL(&buf)
		if err != nil {
			t.Fatalf("re-reading what was written: %v", err)
		}
		if len(again.Ops) != len(h.Ops) {
			t.Fatalf("round trip: %d ops, then %d", len(h.Ops), len(again.Ops))
		}
		for i := range h.Ops {
			if h.Ops[i] != again.Ops[i] {
				t.Fatalf("op %d changed: %+v -> %+v", i, h.Ops[i], again.Ops[i])
			}
		}
	})
}
