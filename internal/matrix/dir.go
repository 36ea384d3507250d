package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/vocab"

	"github.com/locksim/locksim/internal/report"
)

// Files of a matrix directory.
const (
	FileMD   = "matrix.md"
	FileJSON = "matrix.json"
	FileHTML = "matrix.html"
)

// Root is where the matrices of a results root go.
func Root(out string) string { return filepath.Join(out, "matrix") }

// outDir is a matrix directory being built: runs and files go into a
// hidden sibling of the final directory, renamed when complete.
type outDir struct {
	root  string // Out/matrix
	stamp string
	dir   *artifact.Dir
	tmp   string // dir.Path() until published
}

func newOutDir(out string, started time.Time) (*outDir, error) {
	root := Root(out)
	stamp := artifact.Stamp(started)
	d, err := artifact.NewDir(root, stamp)
	if err != nil {
		return nil, err
	}
	return &outDir{root: root, stamp: stamp, dir: d, tmp: d.Path()}, nil
}

// discard removes everything the matrix wrote: an interrupted or failed
// matrix leaves nothing that looks like one.
func (d *outDir) discard() { d.dir.Discard() }

// finish writes the three files, renames the directory to its stamp
// (-2, -3... when a matrix started in the same second) and points latest
// at it unless m is Incomplete. On success m.Dir is the final directory.
func (d *outDir) finish(m *Matrix) error {
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{FileJSON, m.WriteJSON},
		{FileMD, m.WriteMarkdown},
		{FileHTML, m.WriteHTML},
	}
	for _, f := range files {
		if err := d.dir.WriteNew(f.name, f.write); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	final, err := artifact.FreeName(filepath.Join(d.root, d.stamp))
	if err != nil {
		return err
	}
	// Each run directory was synced when its report published it; the
	// rest (the matrix's files, the directories that hold the runs, the
	// runs' latest links) is synced here.
	var runs []string
	for _, c := range m.Cells {
		for _, r := range c.Runs {
			if r.Dir != "" {
				runs = append(runs, r.Dir)
			}
		}
	}
	if err := d.dir.PublishSynced(final, false, runs); err != nil {
		return err
	}
	m.Dir = final
	if m.Incomplete {
		return nil
	}
	return report.UpdateLatest(d.root, filepath.Base(final))
}

// Read reads dir/matrix.json; dir may be a matrix directory or a
// link to one (latest). The Matrix's Dir is dir with links resolved, so
// that paths made from it stay valid when latest moves on.
func Read(dir string) (Matrix, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Matrix{}, err
	}
	b, err := os.ReadFile(filepath.Join(real, FileJSON))
	if err != nil {
		return Matrix{}, err
	}
	var m Matrix
	if err := json.Unmarshal(b, &m); err != nil {
		return Matrix{}, fmt.Errorf("%s: %w", filepath.Join(dir, FileJSON), err)
	}
	if len(m.Cells) == 0 {
		return Matrix{}, fmt.Errorf("%s: no cells", filepath.Join(dir, FileJSON))
	}
	for i := range m.Cells {
		// A matrix.json written before expected_verdict existed has the
		// expectation only in its one-line form, which starts with the
		// verdict.
		c := &m.Cells[i]
		if f := strings.Fields(c.Expected); c.ExpectedVerdict == "" && len(f) > 0 {
			c.ExpectedVerdict = vocab.Verdict(f[0])
		}
	}
	m.Dir = real
	return m, nil
}
