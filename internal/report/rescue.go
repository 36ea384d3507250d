package report

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// keepHistory saves a run's history when its report could not be written
// (a full disk, a file-size limit, a results root removed under the run):
// the history is the run's evidence, and everything else in a report can be
// made again from it with 'locksim check'. The file goes to os.TempDir(),
// else the working directory, and its path is returned.
func keepHistory(in Run) (string, error) {
	// The name's length does not depend on the scenario's or the design's:
	// a long one must not cost the run its history too.
	name := "locksim-history-" + cut(pathElem(in.Scenario), 40) + "-" + designElem(in.Algorithm) + "-*.jsonl"
	var errs []error
	for _, dir := range []string{os.TempDir(), "."} {
		f, err := os.CreateTemp(dir, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		path := f.Name()
		err = in.History.WriteJSONL(f)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path) // a truncated history must not pass for the run's
			errs = append(errs, err)
			continue
		}
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return path, nil
	}
	return "", fmt.Errorf("%v (and in the working directory: %v)", errs[0], errs[1])
}

// withKeptHistory adds to a failed report's error where the history went.
func withKeptHistory(err error, in Run) error {
	path, kerr := keepHistory(in)
	if kerr != nil {
		return fmt.Errorf("%w; the history could not be kept either: %v", err, kerr)
	}
	return fmt.Errorf("%w; the run's history is kept in %s", err, path)
}

// cut is s cut to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
