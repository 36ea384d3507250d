package bench

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/locksim/locksim/internal/artifact"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Output files.
const (
	FileCSV     = "bench.csv"
	FileJSON    = "bench.json"
	FileSummary = "summary.md"
)

// CheckOut tells whether dir can receive a run's files: it must not exist
// yet, or be an empty directory. A run checks before it starts, so that an
// hour of measuring is not lost to a typo.
func CheckOut(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s exists and is not empty", dir)
	}
	return nil
}

// Write puts the report's files into dir atomically: everything is written
// into a temporary sibling directory, which is renamed to dir only once
// every file is complete. A failure leaves neither dir nor the temporary
// directory behind.
func (r *Report) Write(dir string) error {
	return writeAtomically(dir, r.writeFiles)
}

func writeAtomically(dir string, fill func(tmp string) error) (err error) {
	if err := CheckOut(dir); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	d, err := artifact.NewDir(filepath.Dir(dir), filepath.Base(dir))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			d.Discard()
		}
	}()
	if err := fill(d.Path()); err != nil {
		return err
	}
	// An empty dir given by the user gives way; a non-empty one stops the
	// rename rather than being overwritten.
	if err := d.Publish(dir, true); err != nil {
		return fmt.Errorf("move results into %s: %w", dir, err)
	}
	return nil
}

func (r *Report) writeFiles(dir string) error {
	if err := r.writeCSV(filepath.Join(dir, FileCSV)); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, FileJSON), func(f *os.File) error {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		saved := *r
		saved.Format = FormatVersion
		return enc.Encode(saved)
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, FileSummary), func(f *os.File) error {
		_, err := f.WriteString(r.Summary())
		return err
	}); err != nil {
		return err
	}
	if err := r.writeSweepCharts(dir); err != nil {
		return err
	}
	if r.Under != nil {
		if err := r.writeTimeline(dir); err != nil {
			return err
		}
		for _, run := range r.Under.Runs {
			path := filepath.Join(dir, historyFile(run.Algorithm))
			if err := writeFile(path, func(f *os.File) error { return run.history.WriteJSONL(f) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// historyFile is where an under-scenario run's history goes, re-checkable
// with the checker.
func historyFile(algo string) string { return "history-" + algo + ".jsonl" }

// FormatVersion is the version of bench.json this package writes. Readers
// of a run take bench.json as the run's data (the summary and the review
// page are drawn from it), so a change that old readers would misread
// raises it.
const FormatVersion = 1

// ReadReport reads a run's bench.json: the Report as Write wrote it, less
// what only the running process had (histograms and histories). A file
// written by a newer lockbench is read as far as this version understands
// it; the caller can tell by Format > FormatVersion.
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Under != nil && len(r.Under.Runs) > len(r.Results) {
		return nil, fmt.Errorf("%s: %d runs under the scenario but %d results", path, len(r.Under.Runs), len(r.Results))
	}
	return &r, nil
}

func writeFile(path string, fill func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

// CSVHeader is bench.csv's first line. Latencies are in microseconds.
var CSVHeader = []string{
	"algorithm", "kind", "scenario", "contention", "nodes", "clients", "seconds",
	"cycles", "cycles_per_s", "attempts", "failed_acquires", "errors",
	"acquire_p50_us", "acquire_p90_us", "acquire_p99_us", "acquire_p999_us", "acquire_max_us", "acquire_mean_us",
	"cycle_p50_us", "cycle_p90_us", "cycle_p99_us", "cycle_p999_us", "cycle_max_us", "cycle_mean_us",
	"vs_raw", "peer", "vs_peer", "round_cycles_per_s",
	"vs_raw_min", "vs_raw_max", "allocs_per_cycle", "cpu_per_cycle_us",
}

func (r *Report) writeCSV(path string) error {
	return writeFile(path, func(f *os.File) error {
		w := csv.NewWriter(f)
		if err := w.Write(CSVHeader); err != nil {
			return err
		}
		num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		lat := func(p Percentiles) []string {
			return []string{num(p.P50), num(p.P90), num(p.P99), num(p.P999), num(p.Max), num(p.Mean)}
		}
		for _, x := range r.Results {
			var rounds []string
			for _, v := range x.RoundThroughput {
				rounds = append(rounds, strconv.FormatFloat(v, 'f', 1, 64))
			}
			row := []string{
				x.Algorithm, string(x.Kind), x.Scenario, string(x.Contention), strconv.Itoa(x.Nodes), strconv.Itoa(x.Clients),
				num(x.Seconds), strconv.FormatInt(x.Cycles, 10), num(x.Throughput),
				strconv.FormatInt(x.Attempts, 10), strconv.FormatInt(x.Refused, 10), strconv.FormatInt(x.Errors, 10),
			}
			row = append(row, lat(x.Acquire)...)
			row = append(row, lat(x.Cycle)...)
			row = append(row, num(x.VsRaw), x.Peer, num(x.VsPeer), strings.Join(rounds, " "),
				num(x.VsRawRounds.Min), num(x.VsRawRounds.Max), num(x.AllocsPerCycle), num(x.CPUPerCycleUs))
			if err := w.Write(row); err != nil {
				return err
			}
		}
		w.Flush()
		return w.Error()
	})
}
