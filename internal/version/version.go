// Package version says which locksim a program is: its module version,
// or for a build from a checkout the commit it was built from, so that
// the shards of one campaign can be told apart from those of another
// build before they are merged.
package version

import (
	"runtime/debug"
	"sync"
)

// String is the module's version ("v1.2.0"), else "devel" followed by the
// commit ("devel+0123456789ab", "-dirty" when the checkout had changes)
// when the build recorded one, else "devel".
var String = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return of(info)
})

func of(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel+" + rev[:min(12, len(rev))] + dirty
}
