package deploy

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// The exploration campaign's workflow passes actionlint (pinned in
// go.mod), run as a library: no network, no binary, shellcheck and
// pyflakes off, so that the finding set is the same on every machine.
func TestWorkflowActionlint(t *testing.T) {
	path := filepath.Join("..", ".github", "workflows", "explore.yml")
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind)
	}

	// The linter is live: a job with a misspelt context fails.
	bad := "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ strateggy.job-total }}\n"
	errs, err = l.Lint("bad.yml", []byte(bad), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 {
		t.Error("actionlint found nothing in a workflow with an unknown context")
	}
}

// The workflow runs the shards as the docs say: --shard from the matrix
// and the job total, and a merge of what they upload.
func TestWorkflowShardsAndMerges(t *testing.T) {
	b, err := readFile(filepath.Join("..", ".github", "workflows", "explore.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--shard ${{ matrix.shard }}/${{ strategy.job-total }}",
		"actions/upload-artifact@",
		"actions/download-artifact@",
		"locksim explore merge",
		"GITHUB_STEP_SUMMARY",
		"apt-get install -y redis-server",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("explore.yml has no %q", want)
		}
	}
}
