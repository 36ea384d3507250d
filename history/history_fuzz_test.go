package history_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/locksim/locksim/history"
)

// FuzzReadJSONL: the history reader never panics, and whatever it accepts
// survives a write/read round trip unchanged.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"kind":"acquire","client":0,"key":"k","call":1,"return":2,"outcome":"ok","token":"c0-1","deadline":500}` + "\n"))
	f.Add([]byte(`{"kind":"fault","client":-1,"call":0,"return":9,"outcome":"ok","fault":"pause-client 0","fault_id":1}` + "\n"))
	f.Add([]byte(`{"kind":"acquire","client":1,"key":"k","call":1,"return":9,"outcome":"fail","reason":"no-majority","granted":[2],"asked":5}` + "\n"))
	f.Add([]byte(`{"kind":"fault","client":-1,"call":0,"return":9,"outcome":"ok","fault":"partition","fault_id":1,"target":{"kind":"partition","link":true,"groups":[["c0","n0"],["c1","n1"]]}}` + "\n"))
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
		// Compared as JSON: an empty list and none read back alike.
		for i := range h.Ops {
			a, _ := json.Marshal(h.Ops[i])
			b, _ := json.Marshal(again.Ops[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("op %d changed: %s -> %s", i, a, b)
			}
		}
	})
}
