package checker

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// drawn is what check.html carries for its scripts: porcupine's data and
// locksim's witness mark.
type drawn struct {
	page        string
	annotations []struct{ Tag, Description, Details string }
	marks       []markBox // nil without a mark
}

var (
	dataLine  = regexp.MustCompile(`(?m)^\s*const data = (.*)$`)
	boxesLine = regexp.MustCompile(`(?m)^\s*const boxes = (.*)$`)
)

func draw(t *testing.T, h history.History, r Result) drawn {
	t.Helper()
	var sb strings.Builder
	if err := VisualizePage(&sb, h, r, Page{Scenario: "s", Design: "d"}); err != nil {
		t.Fatal(err)
	}
	d := drawn{page: sb.String()}
	m := dataLine.FindStringSubmatch(d.page)
	if m == nil {
		t.Fatal("no porcupine data in the page")
	}
	var data struct {
		Annotations []struct{ Tag, Description, Details string }
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	d.annotations = data.Annotations
	if m := boxesLine.FindStringSubmatch(d.page); m != nil {
		if err := json.Unmarshal([]byte(m[1]), &d.marks); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// Every testdata history with a witness gets a link to it, and the box it
// names is the witness's: for exclusion, the operation of the client that
// came in, landing when the witness says (an enter, or with fencing the
// write the resource should not have accepted); for the claim alone, the
// newcomer's lease. A page without a witness has no link.
func TestVisualizeWitnessMark(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	var marked, leases int
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			h := readHistory(t, path)
			e := readExpect(t, strings.TrimSuffix(path, ".jsonl")+".expect")
			e.cfg.Verbose = true
			r := Check(h, e.cfg)
			if r.info == nil {
				t.Skip("nothing to draw")
			}
			d := draw(t, h, r)
			ex, cl := r.Check(vocab.CheckExclusion), r.Check(vocab.CheckClaim)
			if len(ex.Witnesses) == 0 && len(cl.Witnesses) == 0 {
				if d.marks != nil || strings.Contains(d.page, "locksim-jump") {
					t.Error("a page without a witness links one")
				}
				return
			}
			if d.marks == nil || !strings.Contains(d.page, `<a id="locksim-jump" href="#locksim-witness">`) {
				t.Fatal("a page with a witness has no link to it")
			}
			marked++
			first := d.marks[0]
			if len(ex.Witnesses) > 0 {
				w := ex.Witnesses[0]
				if first.Ann >= 0 || first.Client != w.B.Client {
					t.Fatalf("mark %+v, want an operation of client %d", first, w.B.Client)
				}
				var op *history.Op
				for i := range h.Ops {
					if c := &h.Ops[i]; c.Client == first.Client && strconv.FormatInt(int64(c.Call), 10) == first.Call && c.Seq > 0 {
						op = c
					}
				}
				if op == nil {
					t.Fatalf("mark %+v names no operation at the resource", first)
				}
				if !strings.Contains(w.Note, " at "+op.At.String()) {
					t.Errorf("marked %s of client %d landing at %v; the witness says %q", op.Kind, op.Client, op.At, w.Note)
				}
				return
			}
			w := cl.Witnesses[0]
			if first.Ann < 0 || first.Ann >= len(d.annotations) {
				t.Fatalf("mark %+v, want a lease box", first)
			}
			a := d.annotations[first.Ann]
			if a.Description != "lease "+w.B.Token || a.Tag != "client "+strconv.Itoa(w.B.Client)+" leases" {
				t.Errorf("marked %+v; the witness's newcomer is client %d's lease %s", a, w.B.Client, w.B.Token)
			}
			leases++
		})
	}
	if marked < 5 || leases == 0 {
		t.Errorf("%d pages marked, %d on a lease: the testdata lost its witnesses", marked, leases)
	}
}

// Leases have lanes of their own, named so that porcupine's order by name
// keeps clients in number order; every box's tooltip opens with its label;
// porcupine's legend is in the page's flow, not over the heading.
func TestVisualizeLanesAndLabels(t *testing.T) {
	h := readHistory(t, "testdata/gc-pause-overlap.jsonl")
	d := draw(t, h, Check(h, Config{Verbose: true}))
	for _, want := range []string{`"Tag":"client 1 leases"`, `"enter c1-1: key lock; sent at 609.5ms`,
		"#legend { position: static;", "client N leases"} {
		if !strings.Contains(d.page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, a := range d.annotations {
		if a.Tag == "" {
			t.Errorf("annotation %q is on a client's row, over its operations", a.Description)
		}
		if !strings.HasPrefix(a.Details, a.Description) {
			t.Errorf("tooltip %q does not open with the label %q", a.Details, a.Description)
		}
	}

	// Client 11 must come after client 2 in porcupine's order by name.
	for i := range h.Ops {
		if h.Ops[i].Client == 1 {
			h.Ops[i].Client = 11
		}
		if h.Ops[i].Kind == history.KindFault {
			h.Ops[i].Target = &history.Target{Kind: "pause-client", Clients: []int{0}}
		}
	}
	h.Ops = append(h.Ops, history.Op{Kind: history.KindAcquire, Client: 2, Key: "other", Call: 0, Return: 1e6, Outcome: history.OK, Token: "c2-1", Deadline: 5e8})
	d = draw(t, h, Check(h, Config{Verbose: true}))
	var tags []string
	for _, a := range d.annotations {
		tags = append(tags, a.Tag)
	}
	got := strings.Join(tags, ", ")
	for _, want := range []string{"faults: client 00", "client 00 leases", "client 02 leases", "client 11 leases"} {
		if !strings.Contains(got, want) {
			t.Errorf("lanes %s lack %q", got, want)
		}
	}
}
