package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/scenarios"
)

func listCmd() *cobra.Command {
	var asJSON, points, kinds bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios with their expected verdicts (--points: the points a trigger may name; --kinds: the fault kinds)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if points && kinds {
				return usageErr(fmt.Errorf("--points and --kinds: give one"))
			}
			if points {
				return listPoints(cmd, asJSON)
			}
			if kinds {
				return listKinds(cmd, asJSON)
			}
			type row struct {
				Name       string            `json:"name"`
				Doc        string            `json:"doc"`
				Source     string            `json:"source"`
				Algorithms []string          `json:"algorithms"`
				Expect     map[string]string `json:"expect"`
			}
			var rows []row
			wild, err := scenarios.Wild()
			if err != nil {
				return harnessErr(err)
			}
			for _, s := range slices.Concat(scenarios.Builtin(), wild) {
				r := row{Name: s.Name, Doc: strings.Join(strings.Fields(s.Doc), " "), Source: s.Source, Algorithms: s.Algorithms(), Expect: map[string]string{}}
				for k, e := range s.Expectations {
					r.Expect[k] = e.String()
				}
				rows = append(rows, r)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\n", r.Name, firstSentence(r.Doc))
				keys := make([]string, 0, len(r.Expect))
				for k := range r.Expect {
					keys = append(keys, k)
				}
				sort.Slice(keys, func(i, j int) bool { return keys[i] != "*" && (keys[j] == "*" || keys[i] < keys[j]) })
				for _, k := range keys {
					fmt.Fprintf(tw, "\t  %s: %s\n", k, r.Expect[k])
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON on stdout")
	cmd.Flags().BoolVar(&points, "points", false, "list the points a fault's when/until may name instead: the client loop's, in cycle order, then the designs' own")
	cmd.Flags().BoolVar(&kinds, "kinds", false, "list the fault kinds instead: their required and optional fields and whether external servers (--addrs) run them (docs/scenarios.md explains each)")
	return cmd
}

func listKinds(cmd *cobra.Command, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		return json.NewEncoder(out).Encode(scenarios.Kinds())
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tREQUIRED\tOPTIONAL\tEXTERNAL")
	for _, k := range scenarios.Kinds() {
		ext := "no (needs process control)"
		if k.External {
			ext = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Kind, orDash(k.Required), orDash(k.Optional), ext)
	}
	return tw.Flush()
}

func orDash(fs []string) string {
	if len(fs) == 0 {
		return "-"
	}
	return strings.Join(fs, ",")
}

func listPoints(cmd *cobra.Command, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		return json.NewEncoder(out).Encode(scenarios.Points())
	}
	for _, p := range scenarios.Points() {
		fmt.Fprintln(out, p)
	}
	return nil
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
