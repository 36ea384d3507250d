package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/locksim/locksim/internal/suggest"
)

// The vocabulary every command shares, in one place: an unknown flag or
// command is one line that names what was typed and the closest names
// there are (internal/suggest), never cobra's multi-line suggestion or a
// list of everything.

// flagError is every command's flag error function: an unknown flag gets
// the closest flag names the command has.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedName() == "" {
		return usageErr(err)
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return usageErr(fmt.Errorf("%s%s", err, flagHint(ne.GetSpecifiedName(), names)))
}

// flagHint is suggest.Hint for flag names, spelled as typed: --name.
func flagHint(name string, names []string) string {
	c := suggest.Closest(name, names)
	if len(c) == 0 {
		return ""
	}
	return " (did you mean --" + strings.Join(c, " or --") + "?)"
}

// unknownCommand is the root's argument check: locksim takes a command,
// and a word that is none is one line with the closest commands.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	hint := suggest.Hint(args[0], names)
	if hint == "" {
		hint = " (see 'locksim --help')"
	}
	return usageErr(fmt.Errorf("unknown command %q%s", args[0], hint))
}
