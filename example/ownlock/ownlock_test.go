package ownlock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/locksim/locksim/example/ownlock"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
)

func init() {
	if err := ownlock.Register(); err != nil {
		panic(err)
	}
}

// An application registers its own lock, runs a built-in scenario and one
// of its own (YAML, with a fault on the lock's own point) against it from
// go test, asserts on the checks (the catalogue's expectations belong to
// the built-in designs) and reads the run directory. Without a virtual-time
// host in the context the runs go on miniredis in real time, a few seconds
// each.
func Example() {
	ctx := context.Background()
	out, _ := os.MkdirTemp("", "ownlock-")
	defer os.RemoveAll(out)

	// A built-in scenario: the holder crashes right after acquiring.
	s, err := scenarios.Lookup("crash-holder")
	if err != nil {
		panic(err)
	}
	o, err := run.Execute(ctx, s, ownlock.Name, run.Options{Out: out})
	if err != nil {
		panic(err)
	}
	fmt.Println("crash-holder:", o.Checks["exclusion"], o.Checks["liveness"])

	// A scenario of its own: crash between the SET and the lease's return,
	// at the point the lock announces (Info.Points). The key has a TTL, so
	// the lock frees itself and the probe gets it.
	own, err := scenarios.Parse("my-crash.yaml", []byte(`
name: my-lock-crash-after-set
doc: client 0 crashes right after its SET, before it knows it holds the lock
algorithm: my-lock
options: {ttl: 300ms}
nodes: 1
clients: 2
duration: 1s
faults:
  - kind: crash-client
    client: 0
    when: {point: my-lock-after-set}
`))
	if err != nil {
		panic(err)
	}
	o, err = run.Execute(ctx, own, ownlock.Name, run.Options{Out: out})
	if err != nil {
		panic(err)
	}
	fmt.Println("my-lock-crash-after-set:", o.Checks["exclusion"], o.Checks["liveness"], "unplayed:", len(o.Unplayed))

	// The run directory: verdict.json, history.jsonl, summary.md, timeline.
	raw, err := os.ReadFile(filepath.Join(o.Dir, "verdict.json"))
	if err != nil {
		panic(err)
	}
	var v struct {
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		panic(err)
	}
	_, err = os.Stat(filepath.Join(o.Dir, "history.jsonl"))
	fmt.Println("verdict.json:", v.Verdict, "history kept:", err == nil)
	// Output:
	// crash-holder: safe safe
	// my-lock-crash-after-set: safe safe unplayed: 0
	// verdict.json: safe history kept: true
}
