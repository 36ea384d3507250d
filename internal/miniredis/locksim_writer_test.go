package miniredis

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/locksim/locksim/internal/miniredis/server"
)

// TestWriterBytes checks the replies server.Writer writes without fmt
// byte for byte against RESP.
func TestWriterBytes(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	p := server.NewPeer(w)
	p.WriteLen(3)
	p.WriteBulk("")
	p.WriteBulk("héllo\r\n")
	p.WriteInt(-42)
	p.WriteInt(1234567890123)
	p.WriteError("ERR bad\nthing")
	p.WriteInline("OK")
	p.WriteNull()
	p.WriteMapLen(2)
	p.Resp3 = true
	p.WriteMapLen(2)
	p.WriteSetLen(0)
	p.WritePushLen(3)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "*3\r\n$0\r\n\r\n$8\r\nhéllo\r\n\r\n:-42\r\n:1234567890123\r\n-ERR bad thing\r\n+OK\r\n$-1\r\n*4\r\n%2\r\n~0\r\n>3\r\n"
	if got := buf.String(); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
