package report

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/history"
)

// flagsScenario is scenario.yaml for a run configured by flags rather than
// a scenario file. Its fields use the scenario schema's names so that the
// file reads like any other scenario and, without faults, loads as one.
type flagsScenario struct {
	Name        string       `yaml:"name"`
	Algorithm   string       `yaml:"algorithm"`
	Options     flagsOptions `yaml:"options"`
	Backend     string       `yaml:"backend"`
	Server      string       `yaml:"server,omitempty"`
	Nodes       int          `yaml:"nodes"`
	Persistence string       `yaml:"persistence,omitempty"`
	Clients     int          `yaml:"clients"`
	Keys        int          `yaml:"keys"`
	ReadRatio   float64      `yaml:"read_ratio,omitempty"`
	Duration    string       `yaml:"duration"`
	Hold        string       `yaml:"hold"`
	Think       string       `yaml:"think"`
	Seed        uint64       `yaml:"seed"`
}

type flagsOptions struct {
	TTL           string  `yaml:"ttl"`
	Drift         float64 `yaml:"drift"`
	Retries       *int    `yaml:"retries,omitempty"`
	RetryDelay    string  `yaml:"retry_delay"`
	Watchdog      bool    `yaml:"watchdog"`
	Fencing       bool    `yaml:"fencing"`
	ValidityCheck bool    `yaml:"validity_check"`
	NodeTimeout   string  `yaml:"node_timeout"`
	Tolerance     string  `yaml:"tolerance,omitempty"`
}

// flagsYAML writes the configuration a run from flags used. Faults cannot
// be written back as scenario entries from their printed form, so they are
// listed as comments: the file says what ran without pretending that it
// can replay it.
func flagsYAML(name string, c history.Setup) ([]byte, error) {
	d := func(v history.Duration) string { return v.String() }
	s := flagsScenario{
		Name:        name,
		Algorithm:   c.Algorithm,
		Backend:     c.Backend,
		Server:      c.Server,
		Nodes:       c.Nodes,
		Persistence: c.Persistence,
		Clients:     c.Clients,
		Keys:        c.Keys,
		ReadRatio:   c.ReadRatio,
		Duration:    d(c.Duration),
		Hold:        d(c.Hold),
		Think:       d(c.Think),
		Seed:        c.Seed,
		Options: flagsOptions{
			TTL:           d(c.TTL),
			Drift:         c.Drift,
			Retries:       c.Retries,
			RetryDelay:    d(c.RetryDelay),
			Watchdog:      c.Watchdog,
			Fencing:       c.FencingOption,
			ValidityCheck: c.ValidityCheck,
			NodeTimeout:   d(c.NodeTimeout),
		},
	}
	if c.Tolerance > 0 {
		s.Options.Tolerance = d(c.Tolerance)
	}
	var b bytes.Buffer
	b.WriteString("# Written by locksim from command-line flags (no scenario file).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("scenario.yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenario.yaml: %w", err)
	}
	if len(c.Faults) > 0 {
		b.WriteString("# faults, as planned (printed values, not scenario entries):\n")
		for _, f := range c.Faults {
			fmt.Fprintf(&b, "#   - %s\n", f)
		}
	}
	return b.Bytes(), nil
}
