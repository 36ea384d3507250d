package checker

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
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
	r := Check(readHistory(t, "testdata/clean-alternation.jsonl"), Config{})
	for _, name := range []string{vocab.CheckExclusion, vocab.CheckClaim} {
		if c := r.Check(name); c.Verdict != vocab.Unknown || !strings.Contains(c.Detail, "timed out") {
			t.Errorf("%s %s (%s), want unknown after a timeout", name, c.Verdict, c.Detail)
		}
	}
	if !r.SweepAgrees {
		t.Errorf("a timeout is not a disagreement")
	}
	// the overall verdict of a timed-out safe history is unknown, never safe
	if r.Verdict != vocab.Unknown || !strings.Contains(r.Reason, "exclusion, claim") {
		t.Errorf("overall %s (%s), want unknown naming both checks", r.Verdict, r.Reason)
	}
	// the sweep's overlap stands on its own: it is the resource's log
	r = Check(readHistory(t, "testdata/gc-pause-overlap.jsonl"), Config{})
	if ex := r.Check(vocab.CheckExclusion); ex.Verdict != vocab.Unsafe || !strings.Contains(ex.Detail, "timed out") {
		t.Errorf("exclusion %s (%s), want unsafe with porcupine's timeout said", ex.Verdict, ex.Detail)
	}
}

// The real timeout path through porcupine: a nanosecond is far less than
// checking 20,000 resource operations takes.
func TestTinyTimeoutIsUnknown(t *testing.T) {
	h := realisticHistory(2, 80_000, 8, -1)
	r := Check(h, Config{Timeout: time.Nanosecond})
	if ex := r.Check(vocab.CheckExclusion); ex.Verdict != vocab.Unknown || r.Verdict != vocab.Unknown {
		t.Fatalf("exclusion %s, overall %s, want unknown: %s", ex.Verdict, r.Verdict, ex.Detail)
	}
}

func TestDisagreementIsUnknown(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check string
		says  string
	}{
		{"clean-alternation", vocab.CheckExclusion, "porcupine and the sweep disagree: "}, // porcupine invents an overlap
		{"fenced-late-write", vocab.CheckExclusion, "porcupine and the sweep disagree: "},
		{"clean-alternation", vocab.CheckClaim, "porcupine and the window computation disagree: "},
	} {
		t.Run(tc.file+"/"+tc.check, func(t *testing.T) {
			fakePorcupine(t, porcupine.Illegal)
			r := Check(readHistory(t, "testdata/"+tc.file+".jsonl"), Config{})
			c := r.Check(tc.check)
			if r.SweepAgrees || c.Verdict != vocab.Unknown || !strings.HasPrefix(c.Detail, tc.says) || r.Verdict != vocab.Unknown {
				t.Errorf("sweep_agrees %v, %s %s (%s), overall %s; want a loud unknown", r.SweepAgrees, tc.check, c.Verdict, c.Detail, r.Verdict)
			}
		})
	}
	// porcupine over the clients' view may miss what the resource saw (a
	// delayed message blurs their order): not a disagreement
	t.Run("porcupine misses an overlap", func(t *testing.T) {
		saved := runPorcupine
		t.Cleanup(func() { runPorcupine = saved })
		runPorcupine = func(m porcupine.Model, ops []porcupine.Operation, d time.Duration, v bool) (porcupine.CheckResult, *porcupine.LinearizationInfo) {
			if _, ok := ops[0].Input.(*resOp); ok {
				return porcupine.Ok, nil
			}
			return saved(m, ops, d, v)
		}
		r := Check(readHistory(t, "testdata/gc-pause-overlap.jsonl"), Config{})
		if ex := r.Check(vocab.CheckExclusion); !r.SweepAgrees || ex.Verdict != vocab.Unsafe {
			t.Errorf("sweep_agrees %v, exclusion %s (%s); want unsafe", r.SweepAgrees, ex.Verdict, ex.Detail)
		}
	})
}

func TestOverall(t *testing.T) {
	v := func(vs ...vocab.Verdict) []CheckResult {
		names := []string{vocab.CheckExclusion, vocab.CheckClaim, vocab.CheckFencing, vocab.CheckLiveness}
		var cs []CheckResult
		for i, x := range vs {
			cs = append(cs, CheckResult{Name: names[i], Verdict: x})
		}
		return cs
	}
	leased := View{Leases: []LeaseWindow{{Client: 0, Key: "k", Start: ms, End: 2 * ms}}}
	for _, tc := range []struct {
		checks  []CheckResult
		view    View
		want    vocab.Verdict
		nothing bool // the run tested nothing
	}{
		{v(vocab.Safe, vocab.Safe, vocab.Skipped, vocab.Skipped), leased, vocab.Safe, false},
		{v(vocab.Safe, vocab.Unsafe, vocab.Safe, vocab.Deadlock), leased, vocab.Unsafe, false},
		{v(vocab.Unknown, vocab.Safe, vocab.Unsafe, vocab.Safe), leased, vocab.Unsafe, false},
		{v(vocab.Unknown, vocab.Safe, vocab.Skipped, vocab.Deadlock), leased, vocab.Deadlock, false},
		{v(vocab.Safe, vocab.Unknown, vocab.Skipped, vocab.Safe), leased, vocab.Unknown, false},
		{v(vocab.Safe, vocab.Covered, vocab.Safe, vocab.Safe), leased, vocab.Safe, false},
		// runs that tested nothing are never safe
		{v(vocab.Skipped, vocab.Skipped, vocab.Skipped, vocab.Skipped), leased, vocab.Unknown, true},
		{v(vocab.Skipped, vocab.Skipped, vocab.Skipped, vocab.Safe), View{}, vocab.Unknown, true},
	} {
		got, reason := overall(tc.checks, tc.view)
		if got != tc.want || (got == vocab.Unknown) != (reason != "") {
			t.Errorf("%v: got %s (%q), want %s", tc.checks, got, reason, tc.want)
		}
		if nothing := got == vocab.Unknown && nothingTested(tc.checks, tc.view); nothing != tc.nothing {
			t.Errorf("%v: tested nothing %v, want %v", tc.checks, nothing, tc.nothing)
		}
	}
}

// Client-side intervals would hide this: client 0's enter was called at
// 10 ms and delayed in the network until 600 ms, inside client 1's section.
// Judged by [Call, Return] it could have happened at 10 ms, before client 1
// entered; the resource saw it at 600 ms.
func TestDelayedEnterIsJudgedWhereTheResourceSawIt(t *testing.T) {
	h := history.History{Ops: []history.Op{
		{Kind: history.KindEnter, Client: 1, Key: "k", Call: 400 * ms, Return: 401 * ms, Outcome: history.OK, At: 400 * ms, Seq: 1},
		{Kind: history.KindEnter, Client: 0, Key: "k", Call: 10 * ms, Return: 601 * ms, Outcome: history.OK, At: 600 * ms, Seq: 2},
		{Kind: history.KindExit, Client: 0, Key: "k", Call: 602 * ms, Return: 603 * ms, Outcome: history.OK, At: 602 * ms, Seq: 3},
		{Kind: history.KindExit, Client: 1, Key: "k", Call: 700 * ms, Return: 701 * ms, Outcome: history.OK, At: 700 * ms, Seq: 4},
	}}
	if ex := Check(h, Config{}).Check(vocab.CheckExclusion); ex.Verdict != vocab.Unsafe {
		t.Fatalf("exclusion %s (%s), want unsafe", ex.Verdict, ex.Detail)
	}
}

func TestBadHistories(t *testing.T) {
	enter := func(seq int64, at time.Duration) history.Op {
		return history.Op{Kind: history.KindEnter, Client: 0, Key: "k", Outcome: history.OK, Seq: seq, At: at}
	}
	for name, ops := range map[string][]history.Op{
		"seq against time":                      {enter(1, 5*ms), enter(2, 4*ms)},
		"unknown mode":                          {{Kind: history.KindEnter, Mode: "shared", Key: "k", Outcome: history.OK, Seq: 1, At: ms}},
		"write without the resource's decision": {{Kind: history.KindWrite, Key: "k", Outcome: history.Unknown, Seq: 1, At: ms, Fence: 1}},
	} {
		if ex := Check(history.History{Ops: ops}, Config{}).Check(vocab.CheckExclusion); ex.Verdict != vocab.Unknown || !strings.HasPrefix(ex.Detail, "bad history") {
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
	for _, want := range []string{`"Tag":"faults"`, "pause-client 0 for 1.197s", "lease c1-1",
		"relied on its lease from 601ms to 1.301s (released)", `"enter c1-1"`, "landed at 1.201s (seq 2)",
		"How to read this page"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "fence 0") {
		t.Error("an unfenced lease is labelled with a fence")
	}
}

// check.html explains itself: locksim's heading, the verdict, the links
// back, and the faults in one lane per target.
func TestVisualizePageHeading(t *testing.T) {
	h := readHistory(t, "testdata/gc-pause-overlap.jsonl")
	for i := range h.Ops {
		if h.Ops[i].Kind == history.KindFault {
			h.Ops[i].Target = &history.Target{Kind: "pause-client", Clients: []int{0}}
		}
	}
	var sb strings.Builder
	page := Page{Scenario: "gc-pause-after-check", Design: "redlock", Links: [][2]string{{"summary.md", "summary.md"}, {"timeline.png", "timeline.png"}}}
	if err := VisualizePage(&sb, h, Check(h, Config{Verbose: true}), page); err != nil {
		t.Fatal(err)
	}
	s := sb.String()
	for _, want := range []string{"<title>gc-pause-after-check — redlock — verdict unsafe</title>",
		"<b>Verdict: unsafe</b>", "exclusion unsafe", `href="summary.md"`, `href="timeline.png"`,
		`"Tag":"faults: client 0"`, "lease windows", "not to scale"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(s, "<title>Porcupine</title>") {
		t.Error("still titled Porcupine")
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

// A recording bug (the resource's stamp outside the client's interval)
// fools one decider, not both: the clients saw client 1 enter at 100 ms,
// inside client 0's stay, while the log says it landed at 600 ms, after
// client 0 left. That is unknown, not safe.
func TestRecordingBugIsUnknown(t *testing.T) {
	h := history.History{Ops: []history.Op{
		{Kind: history.KindEnter, Client: 0, Key: "k", Call: 0, Return: ms, Outcome: history.OK, At: ms / 2, Seq: 1},
		{Kind: history.KindEnter, Client: 1, Key: "k", Call: 100 * ms, Return: 101 * ms, Outcome: history.OK, At: 600 * ms, Seq: 3},
		{Kind: history.KindExit, Client: 0, Key: "k", Call: 500 * ms, Return: 501 * ms, Outcome: history.OK, At: 500 * ms, Seq: 2},
		{Kind: history.KindExit, Client: 1, Key: "k", Call: 700 * ms, Return: 701 * ms, Outcome: history.OK, At: 700 * ms, Seq: 4},
	}}
	r := Check(h, Config{})
	if ex := r.Check(vocab.CheckExclusion); ex.Verdict != vocab.Unknown || r.SweepAgrees || !strings.Contains(ex.Detail, "locksim bug") {
		t.Fatalf("exclusion %s (%s), sweep_agrees %v; want unknown naming a locksim bug", ex.Verdict, ex.Detail, r.SweepAgrees)
	}
}
