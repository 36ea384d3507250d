// Package regfile opens the files a user names as input (a scenario, a
// saved history) and refuses what is not a regular file: reading a FIFO
// waits for a writer that may never come, and a device (/dev/zero) never
// ends, so either would hang a command that nothing can interrupt.
package regfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Open opens path for reading when it is a regular file (a symlink to one
// counts) and says what it is otherwise. The open itself does not block:
// it is made with O_NONBLOCK, without which opening a FIFO waits for a
// writer; on a regular file the flag changes nothing.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, fi, nil
}

// Check says whether path is a regular file without opening it.
func Check(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// NotRegularError is a path that names something other than a regular
// file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.What())
}

// What says what the path is instead: "a FIFO", "a directory", ...
func (e *NotRegularError) What() string { return kind(e.Mode) }

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}
