package scenarios

import (
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestWildCorpusFiles: each file of the wild corpus is named after its
// scenario and says what a corpus entry must: the report it replays (doc,
// source), the dangerous moment (require) and the verdicts (expect). That
// it parses, with the pinned versions it names, is package adapter's
// TestWildCorpus, which links them.
func TestWildCorpusFiles(t *testing.T) {
	if len(wild()) == 0 {
		t.Fatal("no scenario under wild/")
	}
	name := regexp.MustCompile(`(?m)^name: (\S+)$`)
	for _, b := range wild() {
		text := string(b.data)
		m := name.FindStringSubmatch(text)
		if m == nil || m[1] != strings.TrimSuffix(path.Base(b.file), ".yaml") {
			t.Errorf("%s: name %v does not match the file name", b.file, m)
		}
		for _, field := range []string{"doc:", "source:", "require:", "expect:"} {
			if !strings.Contains(text, "\n"+field) {
				t.Errorf("%s: no %s", b.file, field)
			}
		}
		if b.name != m[1] {
			t.Errorf("%s: listed as %q", b.file, b.name)
		}
	}
}
