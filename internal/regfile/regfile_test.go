package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRefusesWhatIsNotAFile: a FIFO (without a writer, so a plain open
// would block), a directory and a device are refused at once, naming what
// they are; a regular file and a symlink to one open.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", dir: "a directory", "/dev/zero": "a character device"} {
		f, _, err := Open(path)
		var nr *NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want a refusal naming %s", path, err, want)
		}
		if f != nil {
			_ = f.Close()
		}
		if err := Check(path); !errors.As(err, &nr) {
			t.Errorf("Check(%s) = %v, want a refusal", path, err)
		}
	}
	for _, path := range []string{file, link} {
		f, fi, err := Open(path)
		if err != nil || fi.Size() != 2 {
			t.Errorf("Open(%s) = %v, %v; want the file", path, fi, err)
			continue
		}
		_ = f.Close()
		if err := Check(path); err != nil {
			t.Errorf("Check(%s) = %v", path, err)
		}
	}
}
