package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// doctor --addrs says, per server, whether it answers; a server that does
// not is a failed check (exit 3), a malformed address names itself.
func TestDoctorAddrs(t *testing.T) {
	_, addrs := startServers(t, 1)
	closed := closedAddr(t)
	stdout, _, code := execute(t, "doctor", "--addrs", addrs[0]+","+closed+",nohost")
	assert.Regexp(t, regexp.MustCompile(`(?m)^ok\s+node 0\s+`+regexp.QuoteMeta(addrs[0])+` answers PING$`), stdout)
	assert.Regexp(t, regexp.MustCompile(`(?m)^FAIL\s+node 1\s+`+regexp.QuoteMeta(closed)+` does not answer PING`), stdout)
	assert.Regexp(t, regexp.MustCompile(`(?m)^FAIL\s+node 2\s+--addrs "nohost"`), stdout)
	assert.Equal(t, exitHarness, code)
}
