package scenarios

import (
	"encoding/json"
	"fmt"
	"github.com/locksim/locksim/internal/artifact"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/locksim/locksim/report"
)

// Files of a matrix directory.
const (
	FileMatrixMD   = "matrix.md"
	FileMatrixJSON = "matrix.json"
	FileMatrixHTML = "matrix.html"
)

// MatrixRoot is where the matrices of a results root go.
func MatrixRoot(out string) string { return filepath.Join(out, "matrix") }

// matrixDir is a matrix directory being built: runs and files go into a
// hidden sibling of the final directory, renamed when complete.
type matrixDir struct {
	root  string // Out/matrix
	stamp string
	dir   *artifact.Dir
	tmp   string // dir.Path() until published
}

func newMatrixDir(out string, started time.Time) (*matrixDir, error) {
	root := MatrixRoot(out)
	stamp := artifact.Stamp(started)
	d, err := artifact.NewDir(root, stamp)
	if err != nil {
		return nil, err
	}
	return &matrixDir{root: root, stamp: stamp, dir: d, tmp: d.Path()}, nil
}

// discard removes everything the matrix wrote: an interrupted or failed
// matrix leaves nothing that looks like one.
func (d *matrixDir) discard() { d.dir.Discard() }

// finish writes the three files, renames the directory to its stamp
// (-2, -3... when a matrix started in the same second) and points latest
// at it. On success m.Dir is the final directory.
func (d *matrixDir) finish(m *Matrix) error {
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{FileMatrixJSON, m.WriteJSON},
		{FileMatrixMD, m.WriteMarkdown},
		{FileMatrixHTML, m.WriteHTML},
	}
	for _, f := range files {
		if err := artifact.WriteSynced(filepath.Join(d.tmp, f.name), f.write); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	final, err := artifact.FreeName(filepath.Join(d.root, d.stamp))
	if err != nil {
		return err
	}
	if err := d.dir.Publish(final, false); err != nil {
		return err
	}
	m.Dir = final
	return report.UpdateLatest(d.root, filepath.Base(final))
}

// ReadMatrix reads dir/matrix.json; dir may be a matrix directory or a
// link to one (latest). The Matrix's Dir is dir with links resolved, so
// that paths made from it stay valid when latest moves on.
func ReadMatrix(dir string) (Matrix, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Matrix{}, err
	}
	b, err := os.ReadFile(filepath.Join(real, FileMatrixJSON))
	if err != nil {
		return Matrix{}, err
	}
	var m Matrix
	if err := json.Unmarshal(b, &m); err != nil {
		return Matrix{}, fmt.Errorf("%s: %w", filepath.Join(dir, FileMatrixJSON), err)
	}
	if len(m.Cells) == 0 {
		return Matrix{}, fmt.Errorf("%s: no cells", filepath.Join(dir, FileMatrixJSON))
	}
	m.Dir = real
	return m, nil
}
