package checker

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
	"go.uber.org/goleak"
)

// Porcupine checks partitions in goroutines; none may outlive Check.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func readHistory(t testing.TB, path string) history.History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.ReadJSONL(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return h
}

// expectation is one testdata/<name>.expect file. Lines:
//
//	config fencing             run with Config.Fencing
//	<check> <verdict>          that check's verdict
//	verdict <verdict>          the overall verdict
//	witness <check> <a> <b>    a witness of that check with A.Client a, B.Client b
//	witness-fault <check> <id> a witness of that check lists fault <id>
//
// '#' starts a comment.
type expectation struct {
	cfg      Config
	verdicts map[string]vocab.Verdict
	lines    [][]string // witness lines, checked in order
}

func readExpect(t *testing.T, path string) expectation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := expectation{verdicts: map[string]vocab.Verdict{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		w := strings.Fields(line)
		switch {
		case len(w) == 0:
		case len(w) == 2 && w[0] == "config" && w[1] == "fencing":
			e.cfg.Fencing = true
		case len(w) == 2:
			e.verdicts[w[0]] = vocab.Verdict(w[1])
		case len(w) >= 3 && strings.HasPrefix(w[0], "witness"):
			e.lines = append(e.lines, w)
		default:
			t.Fatalf("%s:%d: cannot parse %q", path, n, sc.Text())
		}
	}
	if len(e.verdicts) == 0 {
		t.Fatalf("%s: expects nothing", path)
	}
	return e
}

func TestTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) < 10 {
		t.Fatalf("testdata: %d histories, %v", len(files), err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			h := readHistory(t, path)
			e := readExpect(t, strings.TrimSuffix(path, ".jsonl")+".expect")
			e.cfg.Verbose = true // every file also goes through Visualize
			r := Check(h, e.cfg)
			for check, want := range e.verdicts {
				got := r.Verdict
				detail := ""
				if check != "verdict" {
					c := r.Check(check)
					if c.Name == "" {
						t.Fatalf("no check named %q", check)
					}
					got, detail = c.Verdict, c.Detail
				}
				if got != want {
					t.Errorf("%s: got %s, want %s (%s)", check, got, want, detail)
				}
			}
			for _, w := range e.lines {
				if !hasWitness(t, r.Check(w[1]), w) {
					t.Errorf("no witness matching %q in %s", strings.Join(w, " "), dump(r.Check(w[1])))
				}
			}
			for _, c := range r.Checks {
				if c.Verdict == vocab.Unsafe && len(c.Witnesses) == 0 {
					t.Errorf("%s is unsafe without a witness", c.Name)
				}
			}
			if !r.SweepAgrees {
				t.Errorf("porcupine and sweep disagree: %s", r.Check(vocab.CheckExclusion).Detail)
			}
			var sb strings.Builder
			err := Visualize(&sb, h, r)
			if strings.HasPrefix(r.Check(vocab.CheckExclusion).Detail, "bad history") {
				if err == nil {
					t.Errorf("Visualize drew a history whose resource log is unusable")
				}
				return
			}
			if err != nil {
				t.Fatalf("Visualize: %v", err)
			}
			if !strings.Contains(sb.String(), "<html") {
				t.Errorf("Visualize wrote no HTML page")
			}
		})
	}
}

func hasWitness(t *testing.T, c CheckResult, w []string) bool {
	for _, x := range c.Witnesses {
		switch w[0] {
		case "witness":
			if len(w) != 4 {
				t.Fatalf("bad line %q", w)
			}
			if strconv.Itoa(x.A.Client) == w[2] && strconv.Itoa(x.B.Client) == w[3] {
				return true
			}
		case "witness-fault":
			id, _ := strconv.Atoi(w[2])
			if slices.ContainsFunc(x.Faults, func(f FaultWindow) bool { return f.ID == id }) {
				return true
			}
		default:
			t.Fatalf("bad line %q", w)
		}
	}
	return false
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
