package checker

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/sim"
)

// fakePorcupine replaces porcupine for one test.
func fakePorcupine(t *testing.T, verdict porcupine.CheckResult) {
	saved := runPorcupine
	t.Cleanup(func() { runPorcupine = saved })
	runPorcupine = func(porcupine.Model, []porcupine.Operation, time.Duration, bool) (porcupine.CheckResult, *porcupine.LinearizationInfo) {
		return verdict, nil
	}
}

func TestPorcupineTimeoutIsUnknown(t *testing.T) {
	fakePorcupine(t, porcupine.Unknown)
	for _, name := range []string{"clean-alternation", "gc-pause-overlap"} {
		r := Check(readHistory(t, "testdata/"+name+".jsonl"), Config{})
		ex := r.Check(nameExclusion)
		if ex.Verdict != Unknown || !strings.Contains(ex.Detail, "timed out") {
			t.Errorf("%s: exclusion %s (%s), want unknown after a timeout", name, ex.Verdict, ex.Detail)
		}
		if !r.SweepAgrees {
			t.Errorf("%s: a timeout is not a disagreement", name)
		}
	}
	// the overall verdict of a timed-out safe history is unknown, never safe
	if r := Check(readHistory(t, "testdata/clean-alternation.jsonl"), Config{}); r.Verdict != Unknown {
		t.Errorf("overall %s, want unknown", r.Verdict)
	}
}

// The real timeout path through porcupine: a nanosecond is far less than
// checking 20,000 resource operations takes.
func TestTinyTimeoutIsUnknown(t *testing.T) {
	h := realisticHistory(2, 80_000, 8, -1)
	r := Check(h, Config{Timeout: time.Nanosecond})
	if ex := r.Check(nameExclusion); ex.Verdict != Unknown || r.Verdict != Unknown {
		t.Fatalf("exclusion %s, overall %s, want unknown: %s", ex.Verdict, r.Verdict, ex.Detail)
	}
}

func TestDisagreementIsUnknown(t *testing.T) {
	for _, tc := range []struct {
		file      string
		porcupine porcupine.CheckResult
	}{
		{"gc-pause-overlap", porcupine.Ok},       // porcupine misses an overlap
		{"clean-alternation", porcupine.Illegal}, // porcupine invents one
		{"fenced-late-write", porcupine.Illegal},
	} {
		t.Run(tc.file, func(t *testing.T) {
			fakePorcupine(t, tc.porcupine)
			r := Check(readHistory(t, "testdata/"+tc.file+".jsonl"), Config{})
			ex := r.Check(nameExclusion)
			if r.SweepAgrees || ex.Verdict != Unknown || !strings.HasPrefix(ex.Detail, "porcupine and sweep disagree: ") {
				t.Errorf("sweep_agrees %v, exclusion %s (%s); want a loud unknown", r.SweepAgrees, ex.Verdict, ex.Detail)
			}
		})
	}
}

func TestOverall(t *testing.T) {
	v := func(vs ...Verdict) []CheckResult {
		names := []string{nameExclusion, nameClaim, nameFencing, nameLiveness}
		var cs []CheckResult
		for i, x := range vs {
			cs = append(cs, CheckResult{Name: names[i], Verdict: x})
		}
		return cs
	}
	for _, tc := range []struct {
		checks []CheckResult
		want   Verdict
	}{
		{v(Safe, Safe, Skipped, Skipped), Safe},
		{v(Safe, Unsafe, Safe, Deadlock), Unsafe},
		{v(Unknown, Safe, Unsafe, Safe), Unsafe},
		{v(Unknown, Safe, Skipped, Deadlock), Deadlock},
		{v(Safe, Unknown, Skipped, Safe), Unknown},
		{v(Skipped, Skipped, Skipped, Skipped), Safe},
	} {
		if got := overall(tc.checks); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.checks, got, tc.want)
		}
	}
}

// Client-side intervals would hide this: client 0's enter was called at
// 10 ms and delayed in the network until 600 ms, inside client 1's section.
// Judged by [Call, Return] it could have happened at 10 ms, before client 1
// entered; the resource saw it at 600 ms.
func TestDelayedEnterIsJudgedWhereTheResourceSawIt(t *testing.T) {
	h := sim.History{Ops: []sim.Op{
		{Kind: sim.KindEnter, Client: 1, Key: "k", Call: 400 * ms, Return: 401 * ms, Outcome: sim.OK, At: 400 * ms, Seq: 1},
		{Kind: sim.KindEnter, Client: 0, Key: "k", Call: 10 * ms, Return: 601 * ms, Outcome: sim.OK, At: 600 * ms, Seq: 2},
		{Kind: sim.KindExit, Client: 0, Key: "k", Call: 602 * ms, Return: 603 * ms, Outcome: sim.OK, At: 602 * ms, Seq: 3},
		{Kind: sim.KindExit, Client: 1, Key: "k", Call: 700 * ms, Return: 701 * ms, Outcome: sim.OK, At: 700 * ms, Seq: 4},
	}}
	if ex := Check(h, Config{}).Check(nameExclusion); ex.Verdict != Unsafe {
		t.Fatalf("exclusion %s (%s), want unsafe", ex.Verdict, ex.Detail)
	}
}

func TestBadHistories(t *testing.T) {
	enter := func(seq int64, at time.Duration) sim.Op {
		return sim.Op{Kind: sim.KindEnter, Client: 0, Key: "k", Outcome: sim.OK, Seq: seq, At: at}
	}
	for name, ops := range map[string][]sim.Op{
		"seq against time":                      {enter(1, 5*ms), enter(2, 4*ms)},
		"unknown mode":                          {{Kind: sim.KindEnter, Mode: "shared", Key: "k", Outcome: sim.OK, Seq: 1, At: ms}},
		"write without the resource's decision": {{Kind: sim.KindWrite, Key: "k", Outcome: sim.Unknown, Seq: 1, At: ms, Fence: 1}},
	} {
		if ex := Check(sim.History{Ops: ops}, Config{}).Check(nameExclusion); ex.Verdict != Unknown || !strings.HasPrefix(ex.Detail, "bad history") {
			t.Errorf("%s: exclusion %s (%s), want unknown", name, ex.Verdict, ex.Detail)
		}
	}
}

// verdict.json is read by people and by other tools: snake_case names.
func TestResultJSON(t *testing.T) {
	r := Check(readHistory(t, "testdata/claim-overlap.jsonl"), Config{})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"verdict":"unsafe"`, `"checks":[`, `"sweep_agrees":true`, `"ops":9`, `"elapsed":`,
		`"name":"claim"`, `"detail":"`, `"witnesses":[`, `"check":"claim"`, `"key":"lock"`, `"a":{"client":0`,
		`"token":"c0-1"`, `"start":`, `"end":`, `"faults":[{"id":1,"desc":"clock-jump-node 0 by 1s"`, `"note":"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("verdict JSON lacks %s:\n%s", key, b)
		}
	}
}

func TestVisualize(t *testing.T) {
	h := readHistory(t, "testdata/gc-pause-overlap.jsonl")
	if err := Visualize(&strings.Builder{}, h, Check(h, Config{})); err == nil {
		t.Error("Visualize without Config.Verbose should say why it cannot draw")
	}
	var sb strings.Builder
	if err := Visualize(&sb, h, Check(h, Config{Verbose: true})); err != nil {
		t.Fatal(err)
	}
	page := sb.String()
	for _, want := range []string{`"Tag":"faults"`, "pause-client 0 for 1.197s", "lease c1-1 fence 0",
		"claimed from 601ms to 1.301s", "enter(write) c1-1", "key lock seq 2 at 1.201s"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestClockOrdersOperationsAndAnnotations(t *testing.T) {
	at := func(seq int64, t time.Duration) sim.Op {
		return sim.Op{Kind: sim.KindEnter, Client: int(seq), Key: "k", Outcome: sim.OK, Seq: seq, At: t}
	}
	// three operations at 20 ms; resourceOps sorts by (At, Seq)
	log, err := resourceOps(sim.History{Ops: []sim.Op{at(5, 30*ms), at(3, 20*ms), at(1, 10*ms), at(4, 20*ms), at(2, 20*ms)}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := log.clock
	if c.scale != 8 {
		t.Fatalf("scale %d, want 8 for three operations at one instant", c.scale)
	}
	var stamps []int64
	for i, r := range log.all {
		if r.seq != int64(i+1) {
			t.Errorf("position %d holds seq %d: not the resource's order", i, r.seq)
		}
		if r.call <= c.before(r.at) || r.ret >= c.after(r.at) {
			t.Errorf("seq %d [%d, %d] is not strictly inside its instant's edges", r.seq, r.call, r.ret)
		}
		stamps = append(stamps, r.call, r.ret)
	}
	if !slices.IsSorted(stamps) || len(slices.Compact(slices.Clone(stamps))) != len(stamps) {
		t.Errorf("operations overlap on porcupine's clock: %v", stamps)
	}
	if c.after(15*ms) >= c.before(20*ms) || c.before(15*ms) <= c.after(10*ms) {
		t.Errorf("a time between two operations must fall between them")
	}
}

func TestPersistentSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var versions []*setNode
	var set *setNode
	var all []section
	for i := range 2000 {
		s := section{client: rng.IntN(8), token: string(rune('a' + rng.IntN(26))), fence: int64(i)}
		set = set.insert(sectionHash(s), s)
		all = append(all, s)
		versions = append(versions, set)
	}
	for i, v := range versions {
		if got := len(v.elements(nil)); got != i+1 {
			t.Fatalf("version %d holds %d sections, want %d: an insert changed an older version", i, got, i+1)
		}
		if i > 0 && (!v.contains(sectionHash(all[i]), all[i]) || versions[i-1].contains(sectionHash(all[i]), all[i])) {
			t.Fatalf("version %d: membership of its own insert is wrong", i)
		}
	}
	// equal as sets whatever the insertion order
	var shuffled *setNode
	for _, i := range rng.Perm(len(all)) {
		shuffled = shuffled.insert(sectionHash(all[i]), all[i])
	}
	a, b := &fenceState{seen: set, n: len(all)}, &fenceState{seen: shuffled, n: len(all)}
	if !fenceEqual(a, b) || !slices.Equal(set.elements(nil), shuffled.elements(nil)) {
		t.Error("the same sections inserted in another order are not equal")
	}
}
