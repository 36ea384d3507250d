package ports

import (
	"os"
	"path/filepath"
	"strings"
)

// A server that could not bind its port says so in its log; a failed
// start reads only what it wrote itself, so that an old line in a log
// that outlives restarts does not count.
const (
	addrInUseText = "Address already in use"
	logTailBytes  = 4096
)

// LogMarks is how long each of the named logs in dir is now.
func LogMarks(dir string, logs ...string) map[string]int64 {
	marks := map[string]int64{}
	for _, name := range logs {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
			marks[name] = st.Size()
		}
	}
	return marks
}

// TakenSince reports whether a server wrote, in the named logs after
// marks (LogMarks), that a port of its was in use. It reads at most the
// last few KiB of each.
func TakenSince(dir string, marks map[string]int64, logs ...string) bool {
	for _, name := range logs {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		from := marks[name]
		if st, err := f.Stat(); err == nil && st.Size()-from > logTailBytes {
			from = st.Size() - logTailBytes
		}
		b := make([]byte, logTailBytes)
		n, _ := f.ReadAt(b, from)
		_ = f.Close()
		if strings.Contains(string(b[:n]), addrInUseText) {
			return true
		}
	}
	return false
}
