package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fastLines are lines decodeFast reads; slowLines, lines it leaves to
// encoding/json.
var fastLines = []string{
	`{"kind":"acquire","client":0,"key":"k","call":1,"return":2,"outcome":"ok","token":"c0-1","deadline":500}`,
	`{"kind":"acquire","client":1,"key":"k","call":1,"return":9,"outcome":"fail","reason":"no-majority","granted":[2,0],"asked":5}`,
	`{"kind":"acquire","client":1,"key":"k","call":1,"return":9,"outcome":"fail","granted":[]}`,
	`{"kind":"enter","client":3,"key":"k","mode":"write","call":-1,"return":0,"outcome":"unknown","at":7,"seq":9223372036854775807,"unacked":true}`,
	`{"kind":"node","client":-1,"key":"k","call":1,"return":2,"outcome":"ok","node":2,"value":"x","no_ttl":true,"role":"master","event":"MOVED"}`,
	`{"kind":"fault","client":-1,"call":0,"return":9,"outcome":"ok","fault":"pause-client 0","fault_id":1,"at_end":true,"cut":false,"err":"e"}`,
	`{"kind":"wait","client":0,"call":0,"return":9,"outcome":"ok","wait_from":3,"patience":4,"ttl":5,"fence":-6,"reading":7,"detail":"d","source":"s0"}`,
	`{"kind":"bogus","client":0,"call":0,"return":1,"outcome":"maybe"}`,
	`{}`,
	`{"kind":"acquire","client":0,"client":5,"call":1,"return":2,"outcome":"ok","granted":[1],"granted":[]}`,
}

var slowLines = []string{
	`{"kind":"fault","client":-1,"call":0,"return":9,"outcome":"ok","fault":"partition","fault_id":1,"target":{"kind":"partition","link":true,"groups":[["c0","n0"],["c1","n1"]]}}`,
	`{"kind":"clock","client":0,"call":0,"return":0,"outcome":"ok","reading":5,"rate":1.5}`,
	`{"kind":"acquire","client":0,"key":"k\u00e9","call":1,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":0,"key":"clé","call":1,"return":2,"outcome":"ok"}`,
	`{"Kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":0,"call":1.0,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":0,"call":1e3,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":0,"call":01,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":0,"call":9223372036854775808,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":null,"call":1,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire", "client":0,"call":1,"return":2,"outcome":"ok"}`,
	`{"kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok"} `,
	`{"kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok"}x`,
	`{"kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok",}`,
	`{"kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok","extra":1}`,
	`{"kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok","granted":[1,]}`,
	`{"kind":"acquire","client":0,"call":1,"return":2,"outcome":"ok","unacked":tru}`,
	`[]`,
	`{"kind":"acquire"`,
}

// decodesAlike fails t when decodeFast reads line and encoding/json
// reads it otherwise (or not at all); it reports whether decodeFast read
// it.
func decodesAlike(t *testing.T, line []byte) bool {
	t.Helper()
	var fast Op
	if !decodeFast(line, &fast, interner{}) {
		return false
	}
	var slow Op
	if err := json.Unmarshal(line, &slow); err != nil {
		t.Fatalf("%s: decodeFast reads it, encoding/json says %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s:\ndecodeFast:    %#v\nencoding/json: %#v", line, fast, slow)
	}
	return true
}

// Every line decodeFast reads it reads as encoding/json does, and the
// lines WriteJSONL writes for lock and resource operations it reads
// itself; the rest it leaves to encoding/json.
func TestDecodeFastAgrees(t *testing.T) {
	for _, l := range fastLines {
		if !decodesAlike(t, []byte(l)) {
			t.Errorf("%s: left to encoding/json", l)
		}
	}
	for _, l := range slowLines {
		if decodesAlike(t, []byte(l)) {
			t.Errorf("%s: read by decodeFast", l)
		}
	}
	// Every committed run's history: each line read alike.
	files, _ := filepath.Glob("../results/examples/runs/*/history.jsonl")
	if len(files) == 0 {
		t.Fatal("no committed histories")
	}
	lines, read := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines++
			if decodesAlike(t, sc.Bytes()) {
				read++
			}
		}
	}
	if read*10 < lines*9 {
		t.Errorf("decodeFast read %d of %d committed lines, want nine in ten at least", read, lines)
	}
}

// FuzzDecodeFast: on any input, decodeFast never panics, and what it
// reads encoding/json reads alike.
func FuzzDecodeFast(f *testing.F) {
	for _, l := range append(fastLines, slowLines...) {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		decodesAlike(t, line)
	})
}
