package adapter_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

const wildPage = "../docs/wild.md"

// TestWildPage keeps docs/wild.md, the scoreboard of the pinned library
// versions, what the wild corpus and the catalogue expect of them; `go test
// ./adapter -run WildPage -update` rewrites it. That the runs agree is
// TestWildCorpus's business for the corpus, the matrix's for the
// catalogue.
func TestWildPage(t *testing.T) {
	corpus, err := scenarios.Wild()
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range slices.Concat(lock.PinnedNames(), wildOwn(corpus)) {
		requireDesign(t, algo)
	}
	want, err := wildScoreboard()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(wildPage)
	if err == nil && string(got) == want {
		return
	}
	if *update {
		if err := os.WriteFile(wildPage+".tmp", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(wildPage+".tmp", wildPage); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is not the corpus's and the catalogue's expectations (%v); run go test ./adapter -run WildPage -update\n--- want\n%s", wildPage, err, want)
}

// wildCell is what a scenario expects of algo, as the process matrix
// writes it: bold when not safe, – where it does not apply.
func wildCell(s *scenarios.Scenario, algo string) string {
	e, ok := s.Expect(algo)
	switch {
	case !s.Covers(algo):
		return "–"
	case !ok || e.Verdict == vocab.Any:
		return "°"
	case e.Verdict == vocab.Skip:
		return "skip"
	case e.Verdict == vocab.Safe:
		return "safe"
	}
	return "**" + e.String() + "**"
}

func wildScoreboard() (string, error) {
	corpus, err := scenarios.Wild()
	if err != nil {
		return "", err
	}
	pins := lock.PinnedNames()
	columns := slices.Concat(pins, wildOwn(corpus))
	var b strings.Builder
	b.WriteString(`# Bugs from the wild: the scoreboard

Failures users reported against published versions of lock libraries,
replayed by locksim at the version that had them and at the one that
fixed them (the corpus: [scenarios/wild/](../scenarios/wild/), each
scenario's ` + "`doc:`" + ` citing its report), and what the catalogue's fault
families expect of the same versions. Each column is a pinned version run
as a process design ([process-designs.md](process-designs.md#pinned-versions)),
then the designs of locksim's own that the corpus runs: a failure reported
against a library locksim cannot run (Redisson is Java) is replayed through
the design with the same mechanism, at its fixed form (the design) and its
reported one (a variant, ` + "`locksim algos`" + ` lists them).
This page is generated from the scenarios' expectations by ` + "`go test ./adapter\n-run WildPage -update`" + `; ` + "`go test ./adapter -run WildCorpus`" + ` replays
the corpus on miniredis and redis-server and fails when a run differs, and
the corpus and the whole catalogue run on every pinned version with

`)
	var names []string
	for _, s := range slices.Concat(corpus, scenarios.Builtin()) {
		names = append(names, s.Name)
	}
	fmt.Fprintf(&b, "```sh\ngo run ./cmd/locksim matrix --algos %s \\\n  --scenarios %s\n```\n\n", strings.Join(pins, ","), strings.Join(names, ","))
	b.WriteString("## Reported bugs\n\nBold: the bug is there at that version (the verdict and checks the run must show); safe: it is not.\n\n")
	b.WriteString("| report | scenario |")
	for _, p := range columns {
		b.WriteString(" " + p + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(columns)) + "\n")
	fixed := 0
	for _, s := range corpus {
		fmt.Fprintf(&b, "| %s | `%s` |", s.Source, s.Name)
		var buggy, safe bool
		for _, p := range columns {
			c := wildCell(s, p)
			buggy = buggy || strings.HasPrefix(c, "**")
			safe = safe || c == "safe"
			b.WriteString(" " + c + " |")
		}
		if buggy && safe {
			fixed++
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%d reports, %d of them replayed both where the bug is (bold) and at a version or form without it (safe).\n", len(corpus), fixed)
	b.WriteString("\n## Fault families\n\nPer family, how many of the catalogue's scenarios that apply to the version it is expected to come through safe, of those that apply (n/a: none does; a scenario the version cannot play, such as a client clock fault its Go child does not follow, is left out). The pinned versions only: locksim's own designs have the catalogue's matrix ([catalogue.md](catalogue.md)), and a variant runs only where the corpus names it.\n\n")
	// A library whose runs are known to differ from the expectations it
	// inherits (its Like's) has no column: the counts would be a claim its
	// runs do not bear out.
	pins = slices.DeleteFunc(slices.Clone(pins), func(p string) bool {
		lib, _, _ := strings.Cut(p, "@")
		return familiesUnasserted[lib] != "" || familiesUnasserted[p] != ""
	})
	for _, lib := range slices.Sorted(maps.Keys(familiesUnasserted)) {
		fmt.Fprintf(&b, "Not in this table: %s, because %s.\n\n", lib, familiesUnasserted[lib])
	}
	b.WriteString("| family |")
	for _, p := range pins {
		b.WriteString(" " + p + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(pins)) + "\n")
	for _, f := range scenarios.Families() {
		fmt.Fprintf(&b, "| %s |", f.Title())
		for _, p := range pins {
			safe, of := 0, 0
			for _, s := range scenarios.Builtin() {
				e, ok := s.Expect(p)
				if scenarios.FamilyOf(s) != f || !s.Covers(p) || !ok || e.Verdict == vocab.Skip || e.Verdict == vocab.Any {
					continue
				}
				of++
				if e.Verdict == vocab.Safe {
					safe++
				}
			}
			if of == 0 {
				b.WriteString(" n/a |")
			} else {
				fmt.Fprintf(&b, " %d/%d |", safe, of)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(notReplayed)
	return b.String(), nil
}

// wildOwn are the designs the corpus names that are not pinned versions:
// locksim's own designs and their variants (reentrant beside
// reentrant-renewal-gives-up) and the bundled process designs, in the
// order the corpus first names them.
func wildOwn(corpus []*scenarios.Scenario) []string {
	var out []string
	for _, s := range corpus {
		for _, algo := range s.Algorithm {
			if !slices.Contains(out, algo) && !slices.Contains(lock.PinnedNames(), algo) {
				out = append(out, algo)
			}
		}
	}
	return out
}

// notReplayed are the reports read for the corpus that it does not replay,
// each with the reason.
// familiesUnasserted are the pinned libraries (by name) or versions (by
// name@version) whose catalogue runs differ from what they inherit from
// their Like, with the reason.
var familiesUnasserted = map[string]string{
	"redsync@v4.0.3": "its unlock has the flaw go-redsync/redsync PR #61 fixed in v4.0.4 (it counts the release script's 0 as a success), so a release after expiry says released: unlock-after-expiry, counted safe for redsync, is not played (its stale release is never refused) and says nothing of this version ([scenarios/wild/README.md](../scenarios/wild/README.md#go-libraries-redsync-rueidislock-and-redislock))",
	"rueidislock":    "the library extends its key on its own timers while the holder's process runs, which setpx (its Like, whose expectations it inherits) does not, so delayed-write and watchdog-long-hold-no-watchdog are safe, their moment never reached, where setpx's are unsafe; and its check asks the library's context, which a process frozen past its TTL still finds alive when it wakes, so gc-pause-before-check can be unsafe at v1.0.71 ([scenarios/wild/README.md](../scenarios/wild/README.md#rueidislock-and-the-catalogue))",
}

const notReplayed = `
## Reports not replayed

- go-redsync/redsync #144, #158 and PR #143: an unlock or extend after
  expiry reported as "lock already taken" (the unlock says
  ` + "`ErrLockAlreadyExpired`" + ` from v4.12.0). An error's wording, not a behaviour:
  the call is refused at every version, rightly, and the reports describe
  no action taken on the words (scenarios/wild/README.md).
- mike-marcacci/node-redlock #309, #313: a release after expiry or abort
  retries for seconds (redlock 5 and @sesamecare-oss/redlock 1.4.0 count
  the release script's 0 as a vote against; redlock 4.2.0 tries once). A
  cost of the library's own retries, which the adapters turn off (one
  round per call; locksim's loop retries), and no check would see it with
  them on: the release deletes only its own key, so the slow release holds
  up its own client alone, and liveness judges waits for the lock (the
  probe, a client that asked while it was free), not how long a release
  keeps its caller.
- swarthy/redis-semaphore #205 (fixed in 5.5.1): a refresh that ends after
  the release throws "Lost mutex", by default an unhandled rejection that
  ends the process. After the release: no lock is held, and the refresh
  runs on locksim's watchdog, which the release stops first.
- bsm/redislock PR #31, #32, #58, #71, #92 and issue #79: retry
  strategies that share their counters, an exponential backoff that
  keeps its first wait, an error's wording on a timed-out Obtain, and a
  re-obtain by custom token; none changes a verdict at a published version
  ([scenarios/wild/README.md](../scenarios/wild/README.md)).
- redisson/redisson #1763, #5761, #5256, #7272 and the redis/redis-py
  reports that do not apply to 4.3.4: each with its reason in
  [scenarios/wild/README.md](../scenarios/wild/README.md).
`
