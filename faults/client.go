// Package faults holds the nemeses: small printable values that start a
// fault in a simulated world and heal it again. The simulator schedules them
// by time or when a client reaches a named point.
package faults

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// PauseClient stops a whole client process, background goroutines included,
// as a long GC pause or a frozen VM does. It resumes on Stop.
type PauseClient struct{ Client int }

func (f PauseClient) String() string { return fmt.Sprintf("pause-client %d", f.Client) }

func (f PauseClient) Validate(cfg sim.Config) error { return clientInRange(f.Client, cfg) }

func (f PauseClient) Start(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Gate.Pause()
	return nil
}

func (f PauseClient) Stop(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Gate.Resume()
	return nil
}

// CrashClient kills a client: it never runs again and never releases what it
// holds. Stop heals nothing; a crash is forever.
type CrashClient struct{ Client int }

func (f CrashClient) String() string { return fmt.Sprintf("crash-client %d", f.Client) }

func (f CrashClient) Validate(cfg sim.Config) error { return clientInRange(f.Client, cfg) }

func (f CrashClient) Start(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Crash()
	return nil
}

func (CrashClient) Stop(*sim.World) error { return nil }

func clientInRange(i int, cfg sim.Config) error {
	if i < 0 || i >= cfg.Clients {
		return fmt.Errorf("client %d: out of range (clients: %d)", i, cfg.Clients)
	}
	return nil
}

var (
	_ sim.Fault     = PauseClient{}
	_ sim.Validator = PauseClient{}
	_ sim.Fault     = CrashClient{}
	_ sim.Validator = CrashClient{}
)
