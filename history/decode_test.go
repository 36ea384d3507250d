package history_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/history"
)

// A history read from a seekable file, which ReadJSONLBounded counts
// before it decodes, reads the same as from a stream: from where the file
// stands, with or without a final newline, and within the ops bound.
func TestReadJSONLSeekable(t *testing.T) {
	data := boundedInput(t, 50, 5)
	want, err := history.ReadJSONL(io.MultiReader(bytes.NewReader(data)))
	if err != nil || len(want.Ops) != 50 {
		t.Fatalf("stream: %d ops, %v", len(want.Ops), err)
	}
	trimmed := bytes.TrimSuffix(data, []byte("\n"))
	for name, body := range map[string][]byte{"newline": data, "no-newline": trimmed} {
		p := filepath.Join(t.TempDir(), "history.jsonl")
		if err := os.WriteFile(p, append([]byte("skip\n"), body...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Seek(int64(len("skip\n")), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got, err := history.ReadJSONL(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Ops) != len(want.Ops) || cap(got.Ops) != len(want.Ops) {
			t.Fatalf("%s: %d ops in a slice of %d, want %d in one of that size", name, len(got.Ops), cap(got.Ops), len(want.Ops))
		}
		for i := range got.Ops {
			if got.Ops[i].Key != want.Ops[i].Key || got.Ops[i].Kind != want.Ops[i].Kind || got.Ops[i].Client != want.Ops[i].Client ||
				got.Ops[i].Reason != want.Ops[i].Reason || got.Ops[i].Outcome != want.Ops[i].Outcome {
				t.Fatalf("%s: op %d reads %+v, want %+v", name, i, got.Ops[i], want.Ops[i])
			}
		}
		if _, err := f.Seek(int64(len("skip\n")), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, err := history.ReadJSONLBounded(context.Background(), f, history.Bounds{Ops: 10}); err == nil {
			t.Fatalf("%s: 50 ops read within a bound of 10", name)
		}
	}
}

// An unknown kind or outcome is still refused, naming the value.
func TestReadJSONLUnknownWords(t *testing.T) {
	for _, line := range []string{
		`{"kind":"acquired","client":0,"call":0,"return":1,"outcome":"fail"}`,
		`{"kind":"acquire","client":0,"call":0,"return":1,"outcome":"maybe"}`,
	} {
		_, err := history.ReadJSONL(bytes.NewReader([]byte(line)))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("unknown")) {
			t.Errorf("%s: %v, want an unknown kind or outcome", line, err)
		}
	}
}
