package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/scenarios"
)

func listCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios with their expected verdicts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			type row struct {
				Name       string            `json:"name"`
				Doc        string            `json:"doc"`
				Source     string            `json:"source"`
				Algorithms []string          `json:"algorithms"`
				Expect     map[string]string `json:"expect"`
			}
			var rows []row
			for _, s := range scenarios.Builtin() {
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
