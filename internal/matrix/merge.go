package matrix

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/shard"
)

// Part is one shard of a merged matrix as it ran: where, on what and how
// hard, so that a merged matrix keeps every machine's facts.
type Part struct {
	Shard   string    `json:"shard"`
	Dir     string    `json:"dir"` // the shard's directory, as merge was given it
	Version string    `json:"version,omitempty"`
	Machine string    `json:"machine"`
	Started time.Time `json:"started"`
	WallMS  float64   `json:"wall_ms"`
	Runs    int       `json:"runs"` // the runs it made
	Load    Load      `json:"load"`
}

// ErrMerge marks shards that cannot be merged: of different matrices or
// builds, given twice, or some missing. Its message is one line.
var ErrMerge = errors.New("matrix merge")

func mergeErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMerge, fmt.Sprintf(format, args...))
}

// shardOf reads a matrix's shard ("" is a whole matrix, 0/1).
func shardOf(m Matrix) (shard.Shard, error) {
	if m.Shard == "" {
		return shard.All, nil
	}
	s, err := shard.Parse(m.Shard)
	if err != nil {
		return shard.Shard{}, mergeErr("%s: shard %q is not i/n", m.Dir, m.Shard)
	}
	return s, nil
}

// sameMatrix names the first field in which b's configuration differs
// from a's, with both values; "" when they are shards of one matrix.
func sameMatrix(a, b Matrix) string {
	seed := func(m Matrix) string {
		if m.Seed == nil {
			return "each scenario's own"
		}
		return fmt.Sprint(*m.Seed)
	}
	names := func(m Matrix) string {
		var n []string
		for _, r := range m.Scenarios {
			n = append(n, r.Name)
		}
		return strings.Join(n, ",")
	}
	for _, f := range []struct{ name, a, b string }{
		{"version", a.Version, b.Version},
		{"runs", fmt.Sprint(a.Runs), fmt.Sprint(b.Runs)},
		{"seed", seed(a), seed(b)},
		{"backend", a.Backend, b.Backend},
		{"server", a.Server, b.Server},
		{"addrs", strings.Join(a.Addrs, ","), strings.Join(b.Addrs, ",")},
		{"toxiproxy", a.Toxiproxy, b.Toxiproxy},
		{"algorithms", strings.Join(a.Algorithms, ","), strings.Join(b.Algorithms, ",")},
		{"scenarios", names(a), names(b)},
		{"cells", fmt.Sprint(len(a.Cells)), fmt.Sprint(len(b.Cells))},
	} {
		if f.a != f.b {
			return fmt.Sprintf("%s %q in %s, %q in %s", f.name, f.a, a.Dir, f.b, b.Dir)
		}
	}
	return ""
}

// Merge joins the shards of one matrix, read with Read, into the matrix
// one process would have made: every cell's runs from the shards that
// made them, in run order; the totals recomputed; Parts each shard's
// machine, times and load; Load the sum of their CPU and the busiest of
// their shares. It refuses (ErrMerge, one line) matrices of different
// configurations or locksim versions, naming the field, a shard given
// twice, and missing shards ("shard 3/8 missing"), rather than summarise
// fewer.
func Merge(ms []Matrix) (Matrix, error) {
	if len(ms) == 0 {
		return Matrix{}, mergeErr("no matrix directories given")
	}
	first, err := shardOf(ms[0])
	if err != nil {
		return Matrix{}, err
	}
	have := map[int]string{}
	var shards []shard.Shard
	for _, m := range ms {
		s, err := shardOf(m)
		if err != nil {
			return Matrix{}, err
		}
		if s.Count != first.Count {
			return Matrix{}, mergeErr("shard count %d in %s, %d in %s", first.Count, ms[0].Dir, s.Count, m.Dir)
		}
		if diff := sameMatrix(ms[0], m); diff != "" {
			return Matrix{}, mergeErr("not shards of one matrix: %s", diff)
		}
		if d, ok := have[s.Index]; ok {
			return Matrix{}, mergeErr("shard %s given twice: %s and %s", s, d, m.Dir)
		}
		have[s.Index] = m.Dir
		shards = append(shards, s)
	}
	if missing := shard.Missing(shards, first.Count); len(missing) > 0 {
		return Matrix{}, mergeErr("%s (have %d of %d shards)", strings.Join(missing, ", "), len(shards), first.Count)
	}
	sort.SliceStable(ms, func(a, b int) bool {
		sa, _ := shardOf(ms[a])
		sb, _ := shardOf(ms[b])
		return sa.Index < sb.Index
	})

	out := ms[0]
	out.Dir, out.Shard, out.Parts, out.Incomplete = "", "", nil, false
	out.Cells = slices.Clone(ms[0].Cells)
	out.Load = Load{}
	machines := map[string]bool{}
	for i := range out.Cells {
		out.Cells[i].Runs, out.Cells[i].Status, out.Cells[i].Reason = nil, ms[0].Cells[i].Status, ms[0].Cells[i].Reason
	}
	for _, m := range ms {
		p := Part{Shard: orWhole(m.Shard), Dir: m.Dir, Version: m.Version, Machine: m.Machine, Started: m.Started, WallMS: m.WallMS, Load: m.Load}
		for i, c := range m.Cells {
			o := &out.Cells[i]
			if c.Scenario != o.Scenario || c.Algorithm != o.Algorithm {
				return Matrix{}, mergeErr("cell %d is %s × %s in %s, %s × %s in %s", i, o.Scenario, o.Algorithm, ms[0].Dir, c.Scenario, c.Algorithm, m.Dir)
			}
			p.Runs += len(c.Runs)
			for _, r := range c.Runs {
				o.Runs = append(o.Runs, r)
			}
			switch {
			case o.Status == CellElsewhere:
				o.Status, o.Reason = c.Status, c.Reason
			case c.Status == CellInterrupted:
				o.Status, o.Reason = CellInterrupted, c.Reason
			}
		}
		out.Parts = append(out.Parts, p)
		out.Incomplete = out.Incomplete || m.Incomplete
		machines[m.Machine] = true
		out.Started = minTime(out.Started, m.Started)
		out.WallMS = max(out.WallMS, m.WallMS)
		out.Load.CPUSeconds += m.Load.CPUSeconds
		out.Load.CPUShare = max(out.Load.CPUShare, m.Load.CPUShare)
		out.Load.MachineShare = max(out.Load.MachineShare, m.Load.MachineShare)
		out.Load.SchedP99MS = max(out.Load.SchedP99MS, m.Load.SchedP99MS)
	}
	if len(machines) > 1 {
		out.Machine = fmt.Sprintf("%d machines (see parts)", len(machines))
	}
	for i := range out.Cells {
		c := &out.Cells[i]
		sort.SliceStable(c.Runs, func(a, b int) bool { return c.Runs[a].Run < c.Runs[b].Run })
		if c.Status == CellRan && len(c.Runs) != out.Runs {
			return Matrix{}, mergeErr("%s × %s: %d runs in the shards, want %d", c.Scenario, c.Algorithm, len(c.Runs), out.Runs)
		}
	}
	out.summarize()
	return out, nil
}

func orWhole(s string) string {
	if s == "" {
		return shard.All.String()
	}
	return s
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// ReadShards reads the matrix of each directory (Read) and merges them.
func ReadShards(dirs []string) (Matrix, error) {
	var ms []Matrix
	for _, d := range dirs {
		m, err := Read(d)
		if err != nil {
			return Matrix{}, mergeErr("%s: %v", d, err)
		}
		m.Dir = d
		ms = append(ms, m)
	}
	return Merge(ms)
}

// WriteMerged writes the merged matrix m into out/matrix/<stamp>/, as Run
// writes one: matrix.json, matrix.md, matrix.html, and each run's
// directory copied from the shard that made it (m.Parts' directories; a
// run keeps its path under runs/, which no two shards share: run i of a
// pair has its own seed and so its own directory name), so
// that the merged matrix stands alone and `locksim report` can take it;
// then out/matrix/latest points at it unless m is Incomplete. m.Dir is
// set to the directory written.
func WriteMerged(m *Matrix, out string) error {
	if m.Started.IsZero() {
		m.Started = time.Now()
	}
	w, err := newOutDir(out, time.Now())
	if err != nil {
		return err
	}
	for _, p := range m.Parts {
		for _, c := range m.Cells {
			for _, r := range c.Runs {
				if r.Dir == "" {
					continue
				}
				src := filepath.Join(p.Dir, filepath.FromSlash(r.Dir))
				if _, err := os.Stat(src); err != nil {
					continue // another shard's run
				}
				if err := copyTree(src, filepath.Join(w.tmp, filepath.FromSlash(r.Dir))); err != nil {
					w.discard()
					return fmt.Errorf("copy %s: %w", src, err)
				}
			}
		}
	}
	if err := w.finish(m); err != nil {
		w.discard()
		return err
	}
	return nil
}

// copyTree copies the directory src to dst, which must not exist;
// symbolic links are copied as links.
func copyTree(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("%s exists: two shards made one run", dst)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		o, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(o, in); err != nil {
			o.Close()
			return err
		}
		return o.Close()
	})
}
