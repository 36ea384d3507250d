package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

// docFiles are the Markdown pages whose shell commands and links are
// checked: the README, every page under docs/ and results/README.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	files := append([]string{filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "results", "README.md")}, pages...)
	for _, f := range files {
		_, err := os.Stat(f)
		require.NoError(t, err)
	}
	return files
}

// docCommand is one command line of a fenced sh block.
type docCommand struct {
	file string
	line int
	text string   // the command as written
	prog string   // "locksim" or "lockbench"
	args []string // the arguments after the program
}

// commandPrefixes are the ways the docs start the two programs.
var commandPrefixes = []struct {
	words []string
	prog  string
}{
	{[]string{"go", "run", "./cmd/locksim"}, "locksim"},
	{[]string{"go", "run", "./cmd/lockbench"}, "lockbench"},
	{[]string{"locksim"}, "locksim"},
	{[]string{"bin/locksim"}, "locksim"},
	{[]string{"lockbench"}, "lockbench"},
	{[]string{"bin/lockbench"}, "lockbench"},
}

// docCommands extracts every locksim and lockbench command from the fenced
// ```sh blocks of a Markdown file: continued lines joined, comments dropped,
// lists split at &&, ||, ; and |, words split as a shell would (quotes kept
// together, no expansion).
func docCommands(t *testing.T, file string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var cmds []docCommand
	inSh, inOther := false, false
	pending, start := "", 0
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !inSh && !inOther && strings.HasPrefix(trimmed, "```"):
			inSh = trimmed == "```sh"
			inOther = !inSh
			continue
		case strings.HasPrefix(trimmed, "```"):
			inSh, inOther = false, false
			continue
		case !inSh:
			continue
		}
		if pending == "" {
			start = i + 1
		}
		if strings.HasSuffix(line, `\`) {
			pending += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		full := pending + line
		pending = ""
		words, err := shellWords(full)
		require.NoError(t, err, "%s:%d: %s", file, start, full)
		for _, c := range splitList(words) {
			for _, p := range commandPrefixes {
				if len(c) >= len(p.words) && equalWords(c[:len(p.words)], p.words) {
					cmds = append(cmds, docCommand{file: file, line: start, text: strings.TrimSpace(full), prog: p.prog, args: c[len(p.words):]})
					break
				}
			}
		}
	}
	return cmds
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// shellWords splits a line into words as sh does for a simple command:
// single and double quotes group, a backslash escapes the next character,
// an unquoted # begins a comment, and the operators &&, ||, ;, | and the
// parentheses of a subshell are words of their own.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			inWord = true
			i++
		case c == '#' && !inWord:
			flush()
			return words, nil
		case c == ' ' || c == '\t':
			flush()
		case c == ';' || c == '(' || c == ')':
			flush()
			words = append(words, string(c))
		case c == '&' || c == '|':
			flush()
			op := string(c)
			if i+1 < len(line) && line[i+1] == c {
				op += string(c)
				i++
			}
			words = append(words, op)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

// splitList cuts a list of words into simple commands at the operators.
func splitList(words []string) [][]string {
	var cmds [][]string
	var cur []string
	for _, w := range words {
		switch w {
		case "&&", "||", ";", "|", "&", "(", ")":
			if len(cur) > 0 {
				cmds = append(cmds, cur)
			}
			cur = nil
		default:
			cur = append(cur, w)
		}
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

// TestDocCommandsParse runs every locksim and lockbench command of the
// README and the docs pages far enough to know it is real: the subcommand
// exists, its flags parse and it takes the positional arguments given. A
// subcommand the docs name that the CLI lacks fails here, naming it.
func TestDocCommandsParse(t *testing.T) {
	var cmds []docCommand
	for _, f := range docFiles(t) {
		cmds = append(cmds, docCommands(t, f)...)
	}
	readme := 0
	for _, c := range cmds {
		if filepath.Base(c.file) == "README.md" && filepath.Base(filepath.Dir(c.file)) != "results" {
			readme++
		}
	}
	require.GreaterOrEqual(t, readme, 5, "the README's sh blocks hold its commands")
	var lockbench string // built once, when a page names it
	for _, c := range cmds {
		if c.prog == "lockbench" && lockbench == "" {
			lockbench = buildLockbench(t)
		}
	}
	for _, c := range cmds {
		name := fmt.Sprintf("%s:%d", strings.TrimPrefix(c.file, repoRoot+"/"), c.line)
		t.Run(name, func(t *testing.T) {
			switch c.prog {
			case "locksim":
				if err := parseLocksim(c.args); err != nil {
					t.Errorf("%s:%d: %s: %v", c.file, c.line, c.text, err)
				}
			case "lockbench":
				out, err := exec.Command(lockbench, append(c.args, "--help")...).CombinedOutput()
				if err != nil {
					t.Errorf("%s:%d: %s: %v\n%s", c.file, c.line, c.text, err, out)
				}
			}
		})
	}
}

// parseLocksim finds the subcommand args name in locksim's tree and parses
// the flags and positional arguments the way Execute would, without
// running it.
func parseLocksim(args []string) error {
	root := newRoot()
	var prof cpuProfile
	prof.register(root)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root {
		return fmt.Errorf("no subcommand in %q", args)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return fmt.Errorf("locksim %s: %w", cmd.Name(), err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return fmt.Errorf("locksim %s: %w", cmd.Name(), err)
	}
	return nil
}

// buildLockbench builds cmd/lockbench into a temporary directory.
func buildLockbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lockbench")
	var stderr bytes.Buffer
	build := exec.CommandContext(context.Background(), "go", "build", "-o", bin, "../lockbench")
	build.Stderr = &stderr
	require.NoError(t, build.Run(), "go build ../lockbench: %s", stderr.String())
	return bin
}

// TestParseLocksimCatchesMistakes keeps the command check able to fail: an
// unknown subcommand, an unknown flag, a bad flag value and a stray
// argument are all caught.
func TestParseLocksimCatchesMistakes(t *testing.T) {
	require.NoError(t, parseLocksim([]string{"run", "gc-pause-after-check", "--algos", "setpx", "--ttl", "500ms"}))
	require.NoError(t, parseLocksim([]string{"explore", "merge", "a", "b"}))
	for _, args := range [][]string{
		{"no-such-command"},
		{"run", "--no-such-flag"},
		{"run", "--ttl", "soon"},
		{"algos", "stray"},
		{"check"},
	} {
		require.Error(t, parseLocksim(args), "%q", args)
	}
	words, err := shellWords(`(cd x && npm ci) ; go run ./cmd/locksim run a --algos "process:/usr/bin/python3 a.py" # note`)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"cd", "x"}, {"npm", "ci"}, {"go", "run", "./cmd/locksim", "run", "a", "--algos", "process:/usr/bin/python3 a.py"}}, splitList(words))
}

var (
	linkRe     = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRe = regexp.MustCompile("`[^`\n]*`")
)

// TestDocLinksExist checks every relative link and image of the README and
// the docs pages: the file exists, and an anchor names a heading of its
// Markdown page.
func TestDocLinksExist(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		a := headingAnchors(string(b))
		anchors[file] = a
		return a
	}
	links := 0
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, target := range markdownLinks(string(b)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links to %s, which does not exist", file, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s links to %s: %s has no heading #%s", file, target, dest, anchor)
			}
		}
	}
	require.Greater(t, links, 20, "the pages' links were found")
}

// markdownLinks returns the targets of a page's links and images, outside
// fenced code blocks and code spans.
func markdownLinks(page string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpanRe.ReplaceAllString(line, "")
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, punctuation dropped, spaces as hyphens, -1, -2 ... on repeats.
func headingAnchors(page string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				slug.WriteRune(r)
			case r == ' ':
				slug.WriteByte('-')
			}
		}
		s := slug.String()
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

// TestDocLinkCheckCatchesMistakes keeps the link check able to fail.
func TestDocLinkCheckCatchesMistakes(t *testing.T) {
	a := headingAnchors("# Compare SETNX/GETSET, SET NX PX and Redlock\n## `--wait`: poll\n## x\n## x\n```\n# not a heading\n```\n")
	require.True(t, a["compare-setnxgetset-set-nx-px-and-redlock"])
	require.True(t, a["--wait-poll"])
	require.True(t, a["x"] && a["x-1"])
	require.False(t, a["not-a-heading"])
	require.Equal(t, []string{"a.md#b", "p.png"}, markdownLinks("see [a](a.md#b) `[c](d)`\n![img](p.png \"t\")\n```\n[e](f)\n```\n"))
}

// TestDesignsPageIsTheRegistry keeps docs/designs.md's table what `locksim
// algos` prints: one row per Go design in catalogue order, with its
// summary, weakness and source as registered (process designs have their
// own page).
func TestDesignsPageIsTheRegistry(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "designs.md"))
	require.NoError(t, err)
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| name | what it does | known weakness | source |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| ") {
			break
		}
		rows = append(rows, strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | "))
	}
	var want [][]string
	for _, i := range lock.Algorithms() {
		if !i.Process {
			want = append(want, []string{"`" + i.Name + "`", i.Summary, i.Weakness, i.Source})
		}
	}
	require.NotEmpty(t, want)
	require.Equal(t, want, rows, "docs/designs.md's table is the registry's (lock.Info's Summary, Weakness and Source)")
}
