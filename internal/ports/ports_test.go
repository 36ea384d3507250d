package ports

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReserveOutsideTheEphemeralRange(t *testing.T) {
	lo, hi := Ephemeral()
	for range 50 {
		r, err := Reserve(10000)
		require.NoError(t, err)
		for _, q := range []int{r.Port(), r.Port() + 10000} {
			assert.False(t, q >= lo && q <= hi, "port %d is in the ephemeral range %d-%d", q, lo, hi)
			assert.GreaterOrEqual(t, q, minPort)
			assert.LessOrEqual(t, q, maxPort)
		}
		r.Release()
	}
}

// While a reservation holds a port, nothing else reserves it, in this
// process or in another; once released, it can be reserved again.
func TestReservationExcludesOthers(t *testing.T) {
	r, err := Reserve(10000)
	require.NoError(t, err)
	_, err = ReservePort(r.Port())
	require.ErrorIs(t, err, errHeld)
	_, err = ReservePort(r.Port() + 10000)
	require.ErrorIs(t, err, errHeld, "the offset port is held too")

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperReserve$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+strconv.Itoa(r.Port()))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "refused", "another process: %s", out)

	// Nothing listens on it, and a reservation does not stop this
	// process's own server from binding it.
	l, err := net.Listen("tcp", r.Addr())
	require.NoError(t, err)
	require.NoError(t, l.Close())

	r.Release()
	r.Release()
	again, err := ReservePort(r.Port())
	require.NoError(t, err, "released")
	again.Release()
}

// TestHelperReserve runs in a child process: it tries to reserve the port
// its parent holds.
func TestHelperReserve(t *testing.T) {
	p, err := strconv.Atoi(os.Getenv(helperEnv))
	if err != nil {
		t.Skip("helper for TestReservationExcludesOthers")
	}
	if _, err := ReservePort(p); err != nil {
		t.Logf("refused: %v", err)
		return
	}
	t.Fatalf("port %d reserved in a second process", p)
}

// helperEnv passes the parent's port to TestHelperReserve.
const helperEnv = "LOCKSIM_PORTS_HELPER"

// A port some other program listens on is not reserved.
func TestReserveSkipsABoundPort(t *testing.T) {
	r, err := Reserve()
	require.NoError(t, err)
	p := r.Port()
	r.Release()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	require.NoError(t, err)
	defer l.Close()
	_, err = ReservePort(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "port "+strconv.Itoa(p))
}
