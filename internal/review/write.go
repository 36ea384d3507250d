package review

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/locksim/locksim/internal/artifact"
)

// MarkdownPath is where the Markdown twin of the page at htmlPath goes:
// the same name with .md.
func MarkdownPath(htmlPath string) string {
	return strings.TrimSuffix(htmlPath, filepath.Ext(htmlPath)) + ".md"
}

// Write writes the page to htmlPath and its twin to MarkdownPath(htmlPath).
// Each file is written under a temporary name and renamed into place, so a
// reader sees the old file or the new one, never half of one; the Markdown
// goes first so that a new page never points at an old twin.
func (r *Review) Write(htmlPath string) error {
	dir := filepath.Dir(htmlPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mdPath := MarkdownPath(htmlPath)
	if mdPath == htmlPath {
		return fmt.Errorf("%s: the page needs an extension other than .md (its twin is the .md)", htmlPath)
	}
	if err := artifact.WriteFileAtomic(mdPath, func(w io.Writer) error { return r.WriteMarkdown(w, dir) }); err != nil {
		return err
	}
	return artifact.WriteFileAtomic(htmlPath, r.WriteHTML)
}
