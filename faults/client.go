// Package faults holds the nemeses: small printable values that start a
// fault in a simulated world and heal it again. The simulator schedules them
// by time or when a client reaches a named point.
package faults

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/locksim/locksim/sim"
)

// PauseClient stops a whole client process, background goroutines included,
// as a long GC pause or a frozen VM does; a process design's child is
// stopped with SIGSTOP, in the middle of a command if need be. It resumes
// on Stop.
type PauseClient struct{ Client int }

func (f PauseClient) String() string { return fmt.Sprintf("pause-client %d", f.Client) }

func (f PauseClient) Validate(cfg sim.Config) error { return clientInRange(f.Client, cfg) }

func (f PauseClient) Start(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Pause()
	return nil
}

func (f PauseClient) Stop(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Resume()
	return nil
}

// CrashClient kills a client (a process design's child with SIGKILL): it
// never runs again and never releases what it holds. Stop heals nothing; a crash is forever.
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

// ClockSkewClient sets a client's clock off true time: Offset ahead (behind
// if negative) at once, then running at Rate times true time (0 keeps the
// rate at 1). The designs read time only through this clock: Redlock's
// validity, setnx-getset's stamps, retry delays and the watchdog's period.
// Healing puts the clock back in step with true time.
type ClockSkewClient struct {
	Client int
	Offset time.Duration
	Rate   float64
}

func (f ClockSkewClient) String() string {
	s := fmt.Sprintf("clock-skew-client %d (offset %s", f.Client, signed(f.Offset))
	if f.Rate != 0 {
		s += fmt.Sprintf(", rate %g", f.Rate)
	}
	return s + ")"
}

func (f ClockSkewClient) Validate(cfg sim.Config) error {
	if err := clientInRange(f.Client, cfg); err != nil {
		return err
	}
	switch {
	case f.Rate < 0 || math.IsNaN(f.Rate) || math.IsInf(f.Rate, 0):
		return fmt.Errorf("rate %v: must be a finite number > 0 (0 leaves it at 1)", f.Rate)
	case f.Offset == 0 && (f.Rate == 0 || f.Rate == 1):
		return errors.New("neither offset nor rate: the skew would do nothing")
	}
	return nil
}

func (f ClockSkewClient) Start(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Clock.Jump(f.Offset)
	if f.Rate != 0 {
		c.Clock.SetRate(f.Rate)
	}
	return nil
}

func (f ClockSkewClient) Stop(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Clock.Reset()
	return nil
}

// ClockJumpClient steps a client's clock by By (backwards if negative), as
// an NTP step or an operator's date command would. Healing steps it back in
// line with true time.
type ClockJumpClient struct {
	Client int
	By     time.Duration
}

func (f ClockJumpClient) String() string {
	return fmt.Sprintf("clock-jump-client %d by %s", f.Client, signed(f.By))
}

func (f ClockJumpClient) Validate(cfg sim.Config) error {
	if err := clientInRange(f.Client, cfg); err != nil {
		return err
	}
	if f.By == 0 {
		return errors.New("by 0: the jump would do nothing")
	}
	return nil
}

func (f ClockJumpClient) Start(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Clock.Jump(f.By)
	return nil
}

func (f ClockJumpClient) Stop(w *sim.World) error {
	c, err := w.Client(f.Client)
	if err != nil {
		return err
	}
	c.Clock.Reset()
	return nil
}

// signed writes a duration with its sign, so "+2s" and "-2s" read as moves.
func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// clientInRange and nodeInRange judge a fault's target by the one range
// rule, sim.CheckIndex.
func clientInRange(i int, cfg sim.Config) error {
	return sim.CheckIndex("client", i, cfg.Clients, "clients")
}

var (
	_ sim.Fault     = PauseClient{}
	_ sim.Validator = PauseClient{}
	_ sim.Fault     = CrashClient{}
	_ sim.Validator = CrashClient{}
	_ sim.Fault     = ClockSkewClient{}
	_ sim.Validator = ClockSkewClient{}
	_ sim.Fault     = ClockJumpClient{}
	_ sim.Validator = ClockJumpClient{}
)
