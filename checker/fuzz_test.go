package checker

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// FuzzAgreement: for any seed, porcupine and its cross-checks do not
// contradict each other on the random run it generates (see
// TestPorcupineAndSweepAgree), and the checker does not panic.
func FuzzAgreement(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		h, cfg := randomRun(rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
		if disagrees(h, cfg) {
			t.Fatalf("porcupine and the sweep disagree on:\n%s", jsonl(minimise(h, cfg)))
		}
	})
}

// FuzzCheckJSONL: any history the reader accepts can be checked without a
// panic, and a verdict of unknown never comes with SweepAgrees false unless
// both checkers reached a verdict.
func FuzzCheckJSONL(f *testing.F) {
	f.Add([]byte(`{"kind":"enter","client":0,"key":"k","call":1,"return":2,"outcome":"ok","at":1,"seq":1}
{"kind":"enter","client":1,"key":"k","call":3,"return":4,"outcome":"ok","at":3,"seq":2}
`))
	f.Add([]byte(`{"kind":"write","client":0,"key":"k","call":1,"return":2,"outcome":"ok","fence":2,"at":1,"seq":1}
{"kind":"write","client":1,"key":"k","call":3,"return":4,"outcome":"fail","fence":1,"at":3,"seq":2}
{"kind":"probe","client":-1,"key":"k","call":5,"return":6,"outcome":"fail"}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := history.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			return
		}
		r := Check(h, Config{Timeout: -1})
		if r.Verdict == "" {
			t.Fatal("no verdict")
		}
		for _, c := range r.Checks {
			if c.Verdict == vocab.Unsafe && len(c.Witnesses) == 0 && c.Name != vocab.CheckFencing {
				t.Fatalf("%s unsafe without a witness", c.Name)
			}
		}
	})
}
