package progress

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Off a terminal every finished step is one plain line and nothing else.
func TestPlainLinesOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf)
	b.Update(0, 2, "starting", "")
	b.Update(1, 2, "one", "one: safe")
	b.Update(2, 2, "two", "two: unsafe")
	b.Finish()
	assert.Equal(t, "[1/2] one: safe\n[2/2] two: unsafe\n", buf.String())
}
