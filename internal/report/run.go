package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/vocab"
)

// Run is everything one run directory is written from.
type Run struct {
	Scenario  string // the scenario's name
	Algorithm string
	// ScenarioYAML is scenario.yaml as resolved; nil for a run configured
	// by flags, whose configuration is then written from Setup.
	ScenarioYAML []byte
	// Setup is the run as resolved; History what it recorded.
	Setup   history.Setup
	History history.History
	Started time.Time
	Wall    time.Duration
	// Notes: what was emulated, triggers that never fired, faults that
	// failed.
	Notes []string
	// Incomplete: the run was interrupted; its history is partial.
	Incomplete bool
	// Check is checker.Check of History with Config{Verbose: true}, so
	// that check.html can be drawn.
	Check checker.Result
	// Warnings say whether the run tested little (checker.Warnings over
	// its history): summary.md and verdict.json both print them.
	Warnings []string
	// Expected is "" when nothing is expected, else safe, unsafe, deadlock
	// or any; ExpectedChecks are expected verdicts of single checks. They
	// are shown and recorded, never compared here.
	Expected       vocab.Verdict
	ExpectedChecks map[string]vocab.Verdict
	// Misses is what the result did not meet of the expectation, as the
	// caller's comparison of the typed values found it
	// (scenarios.Expectation.Misses): "verdict" and the names of checks;
	// empty when it met it.
	Misses  []string
	Machine string // e.g. "linux/amd64, 2 cores"
	// Unplayed says, one phrase each, which faults the scenario needs never
	// acted and which of its requirements did not happen: the run did not
	// play the scenario, so it cannot meet its expectation.
	Unplayed []string
	// View is History's checker.View when the caller has read it
	// (checker.CheckWithWarningsView), for the summary and the timeline
	// to read instead of reading it again; nil: they read it.
	View *checker.View
	// Pictures is how many of the run's pictures the report draws; the
	// zero value draws them all. Drawing costs more than a run in virtual
	// time, so callers that make many runs draw less for the runs nobody
	// is sent to. The history holds everything; a rerun draws them.
	Pictures Pictures
	// Zoom names the check (vocab.CheckClaim, ...) whose first witness
	// the timeline zooms on, so that a report about one check shows that
	// check's witness; empty, or a check without a witness: the first
	// witness of any check.
	Zoom string
	// cut: the pictures were not drawn because the run's context ended
	// first (WriteRun); drawnWhole: it ended only once the run was over,
	// so the history is whole.
	cut, drawnWhole bool
}

// Pictures says which of a run's pictures its report draws.
type Pictures int

const (
	// AllPictures: timeline.png, timeline.svg and check.html.
	AllPictures Pictures = iota
	// VectorPictures: timeline.svg and check.html, not the PNG (most of
	// a picture's cost is rasterizing and encoding it).
	VectorPictures
	// NoPictures: none of them.
	NoPictures
)

// draws reports whether a report with these pictures writes file.
func (p Pictures) draws(file string) bool {
	switch file {
	case FilePNG:
		return p == AllPictures
	case FileSVG, FileCheck:
		return p != NoPictures
	}
	return true
}

// Met: the run completed, played its scenario, and its verdict and
// checks met the expectation (Misses is empty).
func (in Run) Met() bool {
	return !in.Incomplete && len(in.Unplayed) == 0 && len(in.Misses) == 0
}

// missed reports whether Misses names name.
func (in Run) missed(name string) bool { return slices.Contains(in.Misses, name) }

// Files of a run directory, in the order they are written.
const (
	FileScenario = "scenario.yaml"
	FileHistory  = "history.jsonl"
	FileVerdict  = "verdict.json"
	FileCheck    = "check.html"
	FileSVG      = "timeline.svg"
	FilePNG      = "timeline.png"
	FileSummary  = "summary.md"
)

// beforeWrite runs before each file is written; tests make it fail to
// prove that a failed run leaves nothing behind.
var beforeWrite = func(name string) error { return nil }

// drawStarts runs as the report starts on its pictures; tests interrupt
// the drawing there.
var drawStarts = func() {}

// ErrInterrupted: the run's context ended before the report's pictures
// were drawn (an interrupted run, or an interrupt while they were drawn).
// The run directory was written without them, marked incomplete.
var ErrInterrupted = errors.New("interrupted before the report's pictures were drawn")

// WriteRun writes the run directory dir. The files are written into a
// sibling temporary directory, synced, and the directory is renamed to dir
// at the end, so dir either holds a report or does not exist: on any error
// but ErrInterrupted nothing is left at dir and the temporary directory is
// removed. dir must not exist yet (see RunDir); its parent is created if
// needed.
//
// The pictures (check.html, timeline.svg, timeline.png) are drawn while
// ctx lasts: a dense run's take seconds, and an interrupt must not wait
// for them. When ctx ends before they are all drawn, none is kept (a
// picture cut midway is never written), and the rest of the report
// (scenario.yaml, history.jsonl, verdict.json, summary.md) is written
// marked incomplete; WriteRun then returns an error wrapping
// ErrInterrupted, dir written.
func WriteRun(ctx context.Context, dir string, in Run) (err error) {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("report: %s: %w", dir, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: %w", err)
	}
	d, err := artifact.NewDir(filepath.Dir(dir), filepath.Base(dir))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	published := false
	defer func() {
		if err != nil && !published {
			d.Discard()
		}
	}()
	write := func(name string, f func(io.Writer) error) error {
		if err := beforeWrite(name); err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		if err := d.WriteNew(name, f); err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		return nil
	}

	scenarioYAML := in.ScenarioYAML
	if scenarioYAML == nil {
		if scenarioYAML, err = flagsYAML(in.Scenario, in.Setup); err != nil {
			return err
		}
	}
	if err := write(FileScenario, func(w io.Writer) error { _, err := w.Write(scenarioYAML); return err }); err != nil {
		return err
	}
	if err := write(FileHistory, in.History.WriteJSONL); err != nil {
		return err
	}
	cut, err := writePictures(ctx, d.Path(), in, write)
	if err != nil {
		return err
	}
	if cut {
		in = in.picturesCut()
	}
	if err := write(FileVerdict, func(w io.Writer) error { return writeVerdict(w, in) }); err != nil {
		return err
	}
	if err := write(FileSummary, func(w io.Writer) error { return writeSummary(w, in) }); err != nil {
		return err
	}
	if err := d.Publish(dir, false); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	published = true
	if cut {
		return fmt.Errorf("report: %w (%w)", ErrInterrupted, context.Cause(ctx))
	}
	return nil
}

// writePictures draws in's pictures into tmp, the report's directory
// under construction, while ctx lasts. cut reports that ctx ended first:
// the pictures already written are then removed, so that a report has
// all its pictures or none.
func writePictures(ctx context.Context, tmp string, in Run, write func(string, func(io.Writer) error) error) (cut bool, err error) {
	if in.Pictures == NoPictures {
		return false, nil
	}
	if context.Cause(ctx) != nil {
		return true, nil
	}
	drawStarts()
	var written []string
	drop := func() (bool, error) {
		for _, name := range written {
			if err := os.Remove(filepath.Join(tmp, name)); err != nil {
				return true, fmt.Errorf("report: %w", err)
			}
		}
		return true, nil
	}
	tl, err := newTimeline(ctx, in)
	if err != nil {
		if context.Cause(ctx) != nil {
			return drop()
		}
		return false, fmt.Errorf("report: %w", err)
	}
	pictures := []struct {
		name  string
		write func(io.Writer) error
	}{
		{FileCheck, func(w io.Writer) error { return writeCheckHTML(w, in) }},
		{FileSVG, func(w io.Writer) error { return tl.writeTo(w, "svg") }},
		{FilePNG, func(w io.Writer) error { return tl.writeTo(w, "png") }},
	}
	for _, p := range pictures {
		if !in.Pictures.draws(p.name) {
			continue
		}
		if context.Cause(ctx) != nil {
			return drop()
		}
		if err := write(p.name, p.write); err != nil {
			if context.Cause(ctx) != nil {
				return drop()
			}
			return false, err
		}
		written = append(written, p.name)
	}
	return false, nil
}

// picturesCut is in as its report says it when its pictures were not
// drawn because the run's context ended first: incomplete, without
// pictures, with a note saying so.
func (in Run) picturesCut() Run {
	in.drawnWhole = !in.Incomplete
	if in.drawnWhole {
		in.Notes = append(slices.Clone(in.Notes), "interrupted while its report was drawn: the history is whole, the pictures were not drawn")
	}
	in.Incomplete, in.Pictures, in.cut = true, NoPictures, true
	return in
}

func writeVerdict(w io.Writer, in Run) error {
	b, err := json.MarshalIndent(newVerdictFile(in), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeCheckHTML writes porcupine's page. When the checker could not judge
// exclusion at all (an unusable resource log), there is nothing for
// porcupine to draw, and the page says so: those are the runs whose
// artifacts matter most. Any other failure is the caller's (a Result
// checked without Verbose) and fails the report.
func writeCheckHTML(w io.Writer, in Run) error {
	var buf bytes.Buffer
	links := [][2]string{{"summary.md", FileSummary}}
	for _, f := range []string{FilePNG, FileSVG} {
		if in.Pictures.draws(f) {
			links = append(links, [2]string{f, f})
		}
	}
	links = append(links, [2]string{"verdict.json", FileVerdict})
	err := checker.VisualizePage(&buf, in.History, in.Check, checker.Page{
		Scenario: in.Scenario, Design: in.Algorithm, Links: links,
	})
	if err == nil {
		_, err = w.Write(buf.Bytes())
		return err
	}
	ex := in.Check.Check(vocab.CheckExclusion)
	if ex.Verdict != vocab.Unknown {
		return err
	}
	_, werr := fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s — %s: no linearization</title></head>\n"+
		"<body><h1>No porcupine visualization</h1><p>The exclusion check is unknown: %s</p><p>Porcupine had nothing to draw: %s</p>"+
		"<p>See <a href=\"summary.md\">summary.md</a> and <a href=\"timeline.svg\">timeline.svg</a>.</p></body></html>\n",
		html.EscapeString(in.Scenario), html.EscapeString(in.Algorithm), html.EscapeString(ex.Detail), html.EscapeString(err.Error()))
	return werr
}

// ErrExists: the run directory WriteRun was given is taken.
var ErrExists = artifact.ErrExists

// WriteNewRun writes the run under root with RunDir's name (for
// in.Algorithm) and returns the directory. Two runs that pick the same name
// at once (same scenario, design, seed and second) do not collide: the
// loser takes the next free name.
// When the report cannot be written the history is saved on its own and
// the error names the file, so that no run's evidence is lost.
//
// ctx is the run's, as WriteRun takes it: when it ends before the pictures
// are drawn, the directory is written without them and returned with an
// error wrapping ErrInterrupted.
func WriteNewRun(ctx context.Context, root, scenario string, started time.Time, seed uint64, in Run) (string, error) {
	for range 100 {
		dir, err := RunDir(root, scenario, in.Algorithm, started, seed)
		if err != nil {
			return "", withKeptHistory(err, in)
		}
		err = WriteRun(ctx, dir, in)
		if err == nil || errors.Is(err, ErrInterrupted) {
			return dir, err
		}
		if !errors.Is(err, ErrExists) {
			return "", withKeptHistory(err, in)
		}
	}
	return "", withKeptHistory(fmt.Errorf("report: no free run directory for %s at %s", scenario, started.UTC().Format(time.RFC3339)), in)
}

// RunDir names a new run directory: root/locksim/<scenario>/<UTC
// stamp>-<design>-s<seed> (<UTC stamp>-s<seed> when design is empty), with
// -2, -3... appended when that name is taken. The scenario name is made
// safe as a path element, the design's as a slug (designElem).
func RunDir(root, scenario, design string, started time.Time, seed uint64) (string, error) {
	name := artifact.Stamp(started)
	if design != "" {
		name += "-" + designElem(design)
	}
	base := filepath.Join(root, RunsDir, pathElem(scenario), name+"-s"+strconv.FormatUint(seed, 10))
	name, err := artifact.FreeName(base)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return name, nil
}

// pathElem keeps a user-given scenario name inside its directory.
func pathElem(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == os.PathSeparator || r < ' ' {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if name == "" || name == "." || name == ".." {
		return "unnamed"
	}
	return name
}

// maxDesignElem bounds a design's part of a file name.
const maxDesignElem = 64

// designElem is a design's name as a piece of a file name. A process:CMD
// design is named by its command, with a colon, spaces and slashes: every
// run of characters other than letters, digits, '.', '_' and '-' becomes
// one '-', and a name that is still long is cut and ends with a hash of
// the whole, so that two commands keep apart. The run's summary and
// verdict keep the name itself.
func designElem(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.TrimSpace(name) {
		ok := r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.Trim(b.String(), "-.")
	if slug == "" {
		return "unnamed"
	}
	if len(slug) <= maxDesignElem && slug == name {
		return slug
	}
	if len(slug) > maxDesignElem-9 {
		slug = strings.TrimRight(slug[:maxDesignElem-9], "-.")
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return fmt.Sprintf("%s-%08x", slug, h.Sum32())
}

// LatestLink is the name of the link to a scenario's newest run, of any
// design; LatestFor names the link to one design's newest run.
const LatestLink = "latest"

// LatestFor is the name of the link to design's newest run of a scenario:
// latest-<design>.
func LatestFor(design string) string { return LatestLink + "-" + designElem(design) }

// UpdateLatest points scenarioDir/latest at the run directory runDirName
// (a name inside scenarioDir; the link is relative so that the results
// tree can be moved). The link is replaced atomically: a reader sees the
// old target or the new one, never no link.
func UpdateLatest(scenarioDir, runDirName string) error {
	return UpdateLink(scenarioDir, LatestLink, runDirName)
}

// UpdateLink is UpdateLatest for the link called name (LatestLink, or
// LatestFor a design).
func UpdateLink(scenarioDir, name, runDirName string) error {
	target := runDirName
	if filepath.IsAbs(target) {
		rel, err := filepath.Rel(scenarioDir, target)
		if err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		target = rel
	}
	if fi, err := os.Stat(filepath.Join(scenarioDir, target)); err != nil {
		return fmt.Errorf("report: %s: %w", name, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("report: %s: %s is not a directory", name, target)
	}
	link := filepath.Join(scenarioDir, name)
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("report: %s exists and is not a link; not replacing it", link)
	}
	var tmpLink string
	for tries := 0; tries <= 10; tries++ { // random names collide only by bad luck
		tmpLink = filepath.Join(scenarioDir, fmt.Sprintf("%s.tmp-%016x", name, rand.Uint64()))
		err := os.Symlink(target, tmpLink)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || tries == 10 {
			return fmt.Errorf("report: %s: %w", name, err)
		}
	}
	if err := os.Rename(tmpLink, link); err != nil {
		_ = os.Remove(tmpLink)
		return fmt.Errorf("report: %s: %w", name, err)
	}
	return nil
}
