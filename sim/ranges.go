package sim

import (
	"fmt"
	"time"
)

// FieldError is a value outside its range. Field names it as a scenario
// file does (nodes, options.ttl, faults[2].node), Value is the value as
// given, and Msg the rule it breaks: "nodes 0: need at least 1". Package
// scenarios maps Field to the file's line; the locksim command maps it to
// a flag.
type FieldError struct {
	Field string
	Value string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + " " + e.Value + ": " + e.Msg }

func fieldErr(field string, v any, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: fmt.Sprint(v), Msg: fmt.Sprintf(format, args...)}
}

// CheckValue is the one place locksim's numeric ranges live: it judges the
// value of one field of a run (named as in a scenario file), or returns nil
// for a field it has no range for. Config.Validate applies it to a
// configuration with its defaults filled in; package scenarios applies it
// to the values a file gives, before defaults, so that an explicit 0 (which
// a Config reads as unset) is judged by the same rule and reported at its
// line.
//
// Counts are ints (faults is the number of faults), durations
// time.Duration, ratios float64; options.retries counts the attempts after
// the first.
func CheckValue(field string, v any) error {
	switch field {
	case "name":
		if s, _ := v.(string); len(s) > maxNameLen {
			return fieldErr(field, fmt.Sprintf("of %d characters", len(s)), "at most %d characters: it names a directory", maxNameLen)
		}
	case "nodes":
		return intRange(field, v, 1, MaxNodes)
	case "clients":
		return intRange(field, v, 1, MaxClients)
	case "keys":
		return intRange(field, v, 1, maxKeys)
	case "nest":
		return intRange(field, v, 1, 0)
	case "replicas":
		if n, _ := v.(int); n < 0 || n > maxReplicas {
			return fieldErr(field, v, "0 or %d per master are supported", maxReplicas)
		}
	case "faults":
		if n, _ := v.(int); n > MaxFaults {
			return fieldErr(field, v, "at most %d faults", MaxFaults)
		}
	case "options.retries":
		if n, _ := v.(int); n < 0 {
			return fieldErr(field, v, "must not be negative; leave it out to retry until the run ends")
		}
	case "duration":
		d, _ := v.(time.Duration)
		if d > maxDuration {
			return fieldErr(field, d, "at most %v", maxDuration)
		}
		return positive(field, d)
	case "hold", "think", "options.retry_delay", "options.node_timeout", "options.tolerance":
		d, _ := v.(time.Duration)
		return positive(field, d)
	case "options.ttl":
		if d, _ := v.(time.Duration); d < time.Millisecond {
			return fieldErr(field, d, "must be at least 1ms")
		}
	case "options.drift":
		if f, _ := v.(float64); !(f > 0 && f < 0.5) {
			return fieldErr(field, v, "must be in (0, 0.5)")
		}
	case "read_ratio":
		if f, _ := v.(float64); !(f >= 0 && f <= 1) {
			return fieldErr(field, v, "must be in [0, 1]")
		}
	}
	return nil
}

// CheckIndex judges an index into n things (clients, nodes): field is
// where it was given ("faults[0].client"), what names the things.
func CheckIndex(field string, i, n int, what string) error {
	if i < 0 || i >= n {
		return fieldErr(field, i, "out of range: %s are 0..%d", what, n-1)
	}
	return nil
}

func intRange(field string, v any, lo, hi int) error {
	n, _ := v.(int)
	if n < lo {
		return fieldErr(field, n, "need at least %d", lo)
	}
	if hi > 0 && n > hi {
		return fieldErr(field, n, "at most %d", hi)
	}
	return nil
}

func positive(field string, d time.Duration) error {
	if d <= 0 {
		return fieldErr(field, d, "must be positive")
	}
	return nil
}

// checkRanges applies CheckValue to every field of c, which has its
// defaults filled in, and CheckIndex to every trigger's client. The fault
// kinds check their own targets with CheckIndex in their Validate.
func (c Config) checkRanges() error {
	checks := []struct {
		field string
		v     any
	}{
		{"nodes", c.Cluster.Nodes}, {"clients", c.Clients}, {"keys", c.Keys},
		{"replicas", c.Cluster.Replicas}, {"nest", c.Nest}, {"faults", len(c.Faults)},
		{"duration", c.Duration}, {"hold", c.Hold}, {"think", c.Think}, {"read_ratio", c.ReadRatio},
		{"options.ttl", c.Options.TTL}, {"options.drift", c.Options.Drift},
		{"options.retry_delay", c.Options.Retry.Interval}, {"options.node_timeout", c.Options.NodeTimeout},
	}
	if c.Options.Tolerance != 0 {
		checks = append(checks, struct {
			field string
			v     any
		}{"options.tolerance", c.Options.Tolerance})
	}
	if n := c.Options.Retry.MaxTries; n > 0 {
		checks = append(checks, struct {
			field string
			v     any
		}{"options.retries", n - 1})
	}
	for _, f := range checks {
		if err := CheckValue(f.field, f.v); err != nil {
			return err
		}
	}
	for i, p := range c.Faults {
		if p.Start.OnPoint() {
			if err := c.checkTrigger(fmt.Sprintf("faults[%d].when", i), p.Start); err != nil {
				return err
			}
		}
		if p.Until != nil && p.Until.OnPoint() {
			if err := c.checkTrigger(fmt.Sprintf("faults[%d].until", i), *p.Until); err != nil {
				return err
			}
		}
		if p.Start.At < 0 {
			return fieldErr(fmt.Sprintf("faults[%d].at", i), p.Start.At, "must not be negative")
		}
		if p.For < 0 {
			return fieldErr(fmt.Sprintf("faults[%d].for", i), p.For, "must not be negative")
		}
	}
	return nil
}

func (c Config) checkTrigger(field string, t Trigger) error {
	// Nth 0 reads as the first time, so only a negative one is out of range.
	if t.Nth < 0 {
		return fieldErr(field+".nth", t.Nth, "must be at least 1: the first time is 1")
	}
	return CheckIndex(field+".client", t.Client, c.Clients, "clients")
}
