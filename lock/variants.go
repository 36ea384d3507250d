package lock

import (
	"fmt"
	"slices"
	"strings"
)

// A variant is a built-in design with one documented choice made the other
// way, as a library that reported a bug made it: a watchdog that stops
// after one failed renewal, a WAIT whose answer is not checked. Each is
// named <design>-<choice>, found by Lookup and listed by Variants, and is
// never part of Algorithms, so the catalogue's default design lists stay
// the built-in designs; a scenario names a variant beside its design
// (scenarios/wild) to show the choice's cost.
type variant struct {
	// renewalGivesUp: the watchdog stops after a renewal whose outcome is
	// unknown instead of trying again next period.
	renewalGivesUp bool
	// waitUnchecked: setpx-wait grants the lock whatever WAIT answered.
	waitUnchecked bool
}

var variantNames []string

// registerVariant adds i, a variant of the built-in design of, to the
// registry (for Lookup) but not to the catalogue order (Algorithms).
func registerVariant(of string, i Info) {
	if !slices.Contains(order[:builtins], of) || !strings.HasPrefix(i.Name, of+"-") {
		panic("lock: bad variant " + i.Name + " of " + of)
	}
	if _, dup := registry[i.Name]; dup {
		panic("lock: duplicate variant " + i.Name)
	}
	i.Weakness = fmt.Sprintf("%s (a variant of %s)", i.Weakness, of)
	registry[i.Name] = i
	variantNames = append(variantNames, i.Name)
}

// Variants lists the variants of the built-in designs, in registration
// order; Lookup finds each by name.
func Variants() []Info {
	out := make([]Info, 0, len(variantNames))
	for _, n := range variantNames {
		out = append(out, registry[n])
	}
	return out
}

// IsVariant reports whether name is a variant of a built-in design.
func IsVariant(name string) bool { return slices.Contains(variantNames, name) }
