package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/lock"
)

func algosCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "algos",
		Short: "List every lock design with its weakness and source",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if asJSON {
				type row struct {
					Name        string `json:"name"`
					Summary     string `json:"summary"`
					Weakness    string `json:"weakness"`
					Source      string `json:"source"`
					Like        string `json:"like,omitempty"`
					Process     bool   `json:"process,omitempty"`
					Unavailable string `json:"unavailable,omitempty"`
				}
				var rows []row
				for _, i := range slices.Concat(lock.Algorithms(), lock.Variants()) {
					rows = append(rows, row{i.Name, i.Summary, i.Weakness, i.Source, i.Like, i.Process, i.Missing()})
				}
				for _, n := range lock.PinnedNames() {
					if i, err := lock.Lookup(n); err == nil {
						rows = append(rows, row{i.Name, i.Summary, i.Weakness, i.Source, i.Like, i.Process, ""})
					}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			// the variants of the built-in designs follow them: each is run
			// only where a scenario or --algos names it
			for _, i := range slices.Concat(lock.Algorithms(), lock.Variants()) {
				fmt.Fprintf(tw, "%s\t%s\n\tweakness: %s\n\tsource: %s\n", i.Name, i.Summary, i.Weakness, i.Source)
				if i.Like != "" {
					fmt.Fprintf(tw, "\tshould behave like: %s\n", i.Like)
				}
				if m := i.Missing(); m != "" {
					fmt.Fprintf(tw, "\tnot available here: %s\n", m)
				}
			}
			// a pinned version is built on first use, so listing it does not
			// ask whether it can run here
			for _, n := range lock.PinnedNames() {
				if i, err := lock.Lookup(n); err == nil {
					fmt.Fprintf(tw, "%s\t%s\n\tweakness: %s\n\tsource: %s\n\tshould behave like: %s\n", i.Name, i.Summary, i.Weakness, i.Source, i.Like)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON on stdout")
	return cmd
}
