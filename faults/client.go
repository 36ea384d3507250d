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
	"github.com/locksim/locksim/vocab"
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

func init() {
	register(Entry{
		Kind:     vocab.KindPauseClient,
		Example:  "client: 0, for: 100ms",
		Required: []string{"client"},
		Optional: []string{"for", "until"},
		Build:    func(s Spec) (sim.Fault, error) { return PauseClient{Client: *s.Client}, nil },
		Random:   func(d Draw) sim.Fault { return PauseClient{Client: d.Client} },
		Explore:  func(d Draw, s *Spec) { s.Client = ptr(d.Client) },
		Targets:  clientTargets,
		Variants: func(z Sizes) []Variant { return eachLength(z, func(*Spec) {}) },
	})
	register(Entry{
		Kind:     vocab.KindCrashClient,
		Example:  "client: 0",
		Required: []string{"client"},
		Note:     "a crash is forever",
		Build:    func(s Spec) (sim.Fault, error) { return CrashClient{Client: *s.Client}, nil },
		Random:   func(d Draw) sim.Fault { return CrashClient{Client: d.Client} },
		Explore:  func(d Draw, s *Spec) { s.Client = ptr(d.Client) },
		Targets:  clientTargets,
		Variants: func(Sizes) []Variant { return []Variant{{Set: func(*Spec) {}}} },
	})
	register(Entry{
		Kind:     vocab.KindClockSkewClient,
		Example:  "client: 0, offset: 2s",
		Required: []string{"client"},
		Optional: []string{"offset", "rate", "for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			if s.Offset == nil && s.Rate == nil {
				return nil, errors.New("clock-skew-client needs offset, rate or both")
			}
			return ClockSkewClient{Client: *s.Client, Offset: deref(s.Offset), Rate: deref(s.Rate)}, nil
		},
		Random: func(d Draw) sim.Fault {
			rates := []float64{0, 0.5, 1.5, 2}
			return ClockSkewClient{Client: d.Client, Offset: d.Signed(d.Between(d.TTL/2, 3*d.TTL)), Rate: rates[d.Rnd.IntN(len(rates))]}
		},
		Explore: func(d Draw, s *Spec) {
			s.Client = ptr(d.Client)
			s.Offset = ptr(d.Signed(d.Between(d.TTL/2, 3*d.TTL)))
			rates := []float64{0, 0, 0.5, 1.5, 2} // 0: the rate stays 1
			if r := rates[d.Rnd.IntN(len(rates))]; r != 0 {
				s.Rate = ptr(r)
			}
		},
		Targets: clientTargets,
		Variants: func(z Sizes) []Variant {
			return clientSteps(z, func(s *Spec, by time.Duration) { s.Offset, s.For = ptr(by), ptr(z.Lengths[1]) })
		},
	})
	register(Entry{
		Kind:     vocab.KindClockJumpClient,
		Example:  "client: 0, by: 2s",
		Required: []string{"client", "by"},
		Optional: []string{"for", "until"},
		Build:    func(s Spec) (sim.Fault, error) { return ClockJumpClient{Client: *s.Client, By: *s.By}, nil },
		Random: func(d Draw) sim.Fault {
			return ClockJumpClient{Client: d.Client, By: d.Signed(d.Between(d.TTL/2, 3*d.TTL))}
		},
		Explore: func(d Draw, s *Spec) {
			s.Client = ptr(d.Client)
			s.By = ptr(d.Signed(d.Between(d.TTL/2, 3*d.TTL)))
		},
		Targets:  clientTargets,
		Variants: func(z Sizes) []Variant { return clientSteps(z, func(s *Spec, by time.Duration) { s.By = ptr(by) }) },
	})
}

// clientSteps are a client clock's sweep variants: each step either way.
func clientSteps(z Sizes, set func(s *Spec, by time.Duration)) []Variant {
	var out []Variant
	for _, st := range z.Steps {
		for _, d := range []time.Duration{st, -st} {
			out = append(out, Variant{Set: func(s *Spec) { set(s, d) }})
		}
	}
	return out
}
