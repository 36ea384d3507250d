package review

import (
	"encoding/base64"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/style"
	"github.com/locksim/locksim/vocab"
)

// WriteHTML writes the self-contained page: every image is a data URI, the
// CSS is inline, and no element loads anything from elsewhere, so the file
// can be mailed, attached to a ticket or opened offline.
func (r *Review) WriteHTML(w io.Writer) error {
	findings := map[string]bool{}
	for _, f := range r.Findings {
		findings[f.Anchor()] = true
	}
	table := r.Matrix.HTMLTable(func(c matrix.Cell) string {
		if a := CellAnchor(c); findings[a] {
			return "#" + a
		}
		return ""
	}, false)
	data := map[string]any{
		"R":         r,
		"CSS":       template.CSS(style.Base + pageCSS + style.Matrix),
		"Legend":    matrix.Legend,
		"Table":     table,
		"Groups":    r.byScenario(),
		"Designs":   r.byDesign(),
		"Differ":    r.Matrix.Differing(),
		"Unsafe":    countVerdict(r.Findings, vocab.Unsafe),
		"Deadlock":  countVerdict(r.Findings, vocab.Deadlock),
		"BenchHTML": template.HTML(""),
		"Wall":      wall(r.Matrix),
		"Footnotes": r.footnotes(),
		"Notes":     r.noteMarks(),
	}
	data["BenchTop"], data["BenchWarn"] = r.BenchTop()
	if b := r.Bench; b != nil {
		data["BenchHTML"] = template.HTML(b.benchHTML())
	}
	funcs := template.FuncMap{
		// The img tag is built here: html/template would escape each "+"
		// of the base64 as "&#43;", a third more bytes for nothing.
		"img": func(b []byte, alt string) template.HTML {
			return template.HTML(`<img src="` + dataURI(b) + `" alt="` + template.HTMLEscapeString(alt) + `"/>`)
		},
		"join":    strings.Join,
		"oneLine": func(s string) string { return strings.Join(strings.Fields(s), " ") },
	}
	t, err := template.New("review").Funcs(funcs).Parse(pageTemplate)
	if err != nil {
		return err
	}
	return t.Execute(w, data)
}

func wall(m matrix.Matrix) time.Duration {
	return (time.Duration(m.WallMS) * time.Millisecond).Round(100 * time.Millisecond)
}

func dataURI(png []byte) string {
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
}

func countVerdict(fs []Finding, v vocab.Verdict) int {
	n := 0
	for _, f := range fs {
		if string(f.Cell.Runs[f.Run].Verdict) == string(v) {
			n++
		}
	}
	return n
}

const pageCSS = `
body { margin: 24px auto; max-width: 1500px; padding: 0 20px; line-height: 1.4; }
h1 { font-size: 24px; margin-bottom: 2px; }
h2 { font-size: 19px; margin-top: 20px; border-bottom: 2px solid #ddd; padding-bottom: 3px; }
h3 { font-size: 16px; margin-top: 26px; }
h4 { font-size: 14px; margin: 18px 0 4px 0; }
p.meta { color: #555; font-size: 13px; margin-top: 2px; }
p.headline { font-size: 16px; font-weight: 600; margin: 8px 0; }
p.doc { font-size: 13px; color: #333; max-width: 1100px; }
.source { color: #666; font-style: italic; }
table.md, table.designs, table.checks { border-collapse: collapse; font-size: 12px; margin: 6px 0 12px 0; }
table.md th, table.md td, table.designs th, table.designs td, table.checks td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
table.md th, table.designs th { background: #f0f0f0; }
table.designs td.count { text-align: right; }
table.designs td:first-child { white-space: nowrap; }
table.checks td.name { font-weight: 600; white-space: nowrap; }
table.checks td.v { white-space: nowrap; }
tr.failed td { background: #fbe3e3; }
div.finding { border-left: 4px solid #bbb; padding: 2px 0 8px 12px; margin: 10px 0 22px 0; page-break-inside: avoid; }
div.finding.unsafe { border-color: #d9534f; }
div.finding.deadlock { border-color: #f0a030; }
div.finding .exp { font-size: 12px; color: #444; }
div.finding .exp.differ { color: #c00; font-weight: 700; }
div.witnesses { margin: 6px 0 4px 0; }
div.witness { font-size: 13px; margin: 0 0 6px 0; padding: 2px 0 2px 8px; border-left: 2px solid #e0a0a0; max-width: 1100px; }
div.witness .w1 { font-weight: 600; }
div.witness .w2, div.witness .w3 { color: #333; }
div.witness .w3 { font-size: 12px; }
div.witness span.check { display: inline-block; min-width: 70px; color: #a00; }
div.checkline { font-size: 12px; color: #444; margin: 4px 0; }
div.checkline b.bad { color: #a00; }
details { font-size: 12px; margin: 4px 0; }
details summary { cursor: pointer; color: #245; }
details.more { font-size: 13px; }
details.more > div.witness:first-of-type { margin-top: 6px; }
details ul { margin: 4px 0; }
div.finding img, figure img, .bench img { max-width: 100%; border: 1px solid #ddd; }
.missing { color: #a00; font-size: 12px; }
.bench { font-size: 13px; }
div.gridbox { display: flex; gap: 28px; align-items: flex-start; }
div.gridside { flex: 1; min-width: 380px; }
table.grid, table.cost { border-collapse: collapse; margin: 6px 0 6px 0; }
table.grid th, table.grid td { border: 1px solid #bbb; padding: 3px 12px; }
table.cost th, table.cost td { border: 1px solid #bbb; padding: 4px 9px; }
table.grid { font-size: 18px; flex: none; } table.grid thead th { background: #eef0f3; font-size: 17px; }
table.grid th.fam { text-align: left; background: #f6f6f6; white-space: nowrap; font-weight: 600; }
table.grid span.n { color: #666; font-weight: 400; font-size: 14px; }
table.grid td.g { text-align: center; font-weight: 700; min-width: 110px; }
td.g.all { background: #d9f0d9; color: #14561a; } td.g.none { background: #f7d4d4; color: #8a1414; }
td.g.some { background: #fbe9c6; color: #7a4a00; } td.g.na { background: #f2f2f2; color: #888; font-weight: 400; }
table.cost { font-size: 15px; } table.cost th.common { font-size: 13px; font-weight: 600; } table.cost thead th { background: #eef0f3; }
table.cost td.num { text-align: right; } table.cost td.r { text-align: right; white-space: nowrap; }
table.cost td.r span.m { display: block; font-weight: 600; font-size: 17px; }
table.cost td.r span.s { display: block; font-size: 12px; color: #555; }
table.cost td.r.noise { background: #f1f1f1; } table.cost td.r.noise span.m { color: #666; font-style: italic; }
p.caption { font-size: 13px; color: #444; max-width: 1250px; margin: 4px 0 8px 0; }
ol.fn { font-size: 13px; color: #333; margin: 4px 0 0 0; padding-left: 22px; max-width: 1250px; } ol.fn li { margin: 2px 0; }
ul.sentences { font-size: 16px; max-width: 1300px; } ul.sentences li { margin: 6px 0; }
div.note { font-size: 14px; padding: 6px 12px; margin: 8px 0; max-width: 1250px; background: #eef3f8; border: 1px solid #9ab; }
.bench ul.charts { font-size: 13px; }
.bench figure { margin: 10px 0 18px 0; }
.bench figcaption { font-size: 12px; color: #444; }
div.warn, div.nobench { font-size: 14px; padding: 8px 12px; margin: 8px 0 12px 0; max-width: 1100px; }
div.warn { background: #fff3cd; border: 1px solid #e0b040; }
div.nobench { background: #eef3f8; border: 1px solid #9ab; }
dl.scenarios dt { font-weight: 600; margin-top: 8px; } dl.scenarios dd { margin-left: 16px; font-size: 13px; }
dl.verdicts dt { font-weight: 600; float: left; width: 90px; clear: left; } dl.verdicts dd { margin-left: 100px; font-size: 13px; }
code { background: #f4f4f4; padding: 0 3px; }
@media print { body { max-width: none; margin: 0; } h2 { page-break-after: avoid; } }
`

const pageTemplate = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/>
<title>locksim design review — {{.R.Matrix.Started.UTC.Format "2006-01-02"}}</title>
<style>{{.CSS}}</style></head>
<body>
<h1>Redis lock designs under failure: design review</h1>
<p class="meta"><b>Machine:</b> {{.R.Matrix.Machine}} · <b>matrix run:</b> {{.R.Matrix.Started.UTC.Format "2006-01-02 15:04"}} UTC, wall {{.Wall}} · page generated {{.R.Generated.UTC.Format "2006-01-02 15:04"}} UTC by locksim<br/>
{{.R.Matrix.Shape}}.<br/>Load: {{.R.Matrix.Load}}.{{with .R.CommonNotes}}<br/>In every run shown: {{join . "; "}}.{{end}}</p>
<p class="headline">{{.R.Matrix.Headline}}. {{.Unsafe}} pair(s) came out unsafe and {{.Deadlock}} deadlocked; each is shown below with its witness and timeline.</p>

{{with .R.Incomplete}}<div class="warn">⚠ This review did not finish: {{join . "; "}}.</div>{{end}}
<h2 id="grid">Safety by fault family</h2>
<div class="gridbox"><table class="grid"><thead><tr><th class="fam">fault family <span class="n">(scenarios)</span></th>{{range .R.Grid.Designs}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range $i, $row := .R.Grid.Rows}}<tr><th class="fam">{{$row.Family.Title}} <span class="n">({{len $row.Scenarios}})</span>{{with index $.Notes $i}}<sup><a href="#fn-{{$row.Family}}">{{.}}</a></sup>{{end}}</th>{{range $row.Cells}}<td class="g {{.Class}}" title="{{if .Failed}}not safe: {{range $j, $f := .Failed}}{{if $j}}, {{end}}{{$f.Scenario}}{{end}}{{end}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
<div class="gridside"><p class="caption">Each cell: the scenarios of the family the design came through safe in every run ({{.R.Matrix.Runs}} run(s) each) over those it ran. An unknown, mixed or not-played result is not safe; n/a: no scenario of the family applies to the design. A scenario's family follows from its faults (the most telling one).{{with .R.Grid.Unrun}} Not in the grid: {{len .}} scenario(s) none of these designs runs.{{end}}</p>
{{with .Footnotes}}<ol class="fn">{{range .}}<li id="fn-{{.Family}}">{{.Text}}</li>{{end}}</ol>{{end}}</div></div>

<h2 id="cost">Cost against the raw Redis limit</h2>
{{if .BenchWarn}}<div class="warn top">{{.BenchTop}}</div>{{end}}
{{if .R.Cost.Why}}<div class="nobench">{{.R.Cost.Why}}</div>{{end}}
<table class="cost"><thead><tr><th rowspan="2">design</th><th rowspan="2">nodes</th><th rowspan="2" class="common">safe in the {{len .R.Cost.Common}} fault scenarios<br/>all {{len .R.Matrix.Algorithms}} designs ran</th><th colspan="{{len .R.Cost.Clients}}">cycles/s ÷ raw (higher is better, 1.0 at most)</th><th colspan="{{len .R.Cost.Clients}}">p99 acquire ÷ raw (lower is better, 1.0 at least)</th></tr>
<tr>{{range .R.Cost.Clients}}<th>{{.}} client{{if ne . 1}}s{{end}}</th>{{end}}{{range .R.Cost.Clients}}<th>{{.}} client{{if ne . 1}}s{{end}}</th>{{end}}</tr></thead><tbody>
{{range .R.Cost.Rows}}<tr><td><b>{{.Algorithm}}</b></td><td class="num">{{if .Nodes}}{{.Nodes}}{{else}}–{{end}}</td><td class="num">{{.SafeText $.R.Cost}}</td>{{range .Throughput}}{{template "ratio" .}}{{end}}{{range .P99}}{{template "ratio" .}}{{end}}</tr>
{{end}}</tbody></table>
<p class="caption">{{.R.Cost.Caption (len .R.Matrix.Algorithms)}}</p>
{{if and .BenchTop (not .BenchWarn)}}<div class="note">{{.BenchTop}}</div>{{end}}
{{with .R.Cost.Gaps}}<div class="warn">⚠ The comparison is incomplete: {{join . "; "}}.</div>{{end}}

<h2 id="sentences">Each design in one sentence</h2>
<ul class="sentences">{{range .R.Sentences}}<li>{{.}}</li>{{end}}</ul>
{{with .R.Explored}}<h2 id="explore">Random fault schedules</h2>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .R.Swept}}<h2 id="sweep">Every single fault</h2>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2>What breaks each design</h2>
<table class="designs"><thead><tr><th>design</th><th>pairs run</th><th>unsafe under</th><th>deadlocked under</th><th>not as expected</th></tr></thead><tbody>
{{range .Designs}}<tr><td><b>{{.Algorithm}}</b></td><td class="count">{{.Ran}}</td><td>{{with .Unsafe}}<b>{{len .}}</b>: {{join . ", "}}{{end}}</td><td>{{with .Deadlock}}<b>{{len .}}</b>: {{join . ", "}}{{end}}</td><td>{{with .Differ}}<b>{{len .}}</b>: {{join . ", "}}{{end}}</td></tr>
{{end}}</tbody></table>

<h2>Verdict matrix</h2>
{{.Legend}}
{{.Table}}
<p class="meta">A cell: the verdict over the pair's runs, n/k runs that met the scenario's expectation (✓ all, ✗ not all). Unsafe and deadlocked cells link to their finding below.</p>
{{with .Differ}}<h2>Not as expected</h2>
<ul>{{range .}}<li><b>{{.Scenario}} × {{.Algorithm}}</b>: expected {{if .Expected}}{{.Expected}}{{else}}nothing (only safe passes){{end}}; runs: {{.Tally}}{{if .Reason}}; {{.Reason}}{{end}}</li>{{end}}</ul>{{end}}

<h2>Findings: unsafe and deadlocked pairs</h2>
{{if not .Groups}}<p>None: every pair that ran was safe.</p>{{end}}
{{range .Groups}}<h3 id="s-{{.Scenario.Name}}">{{.Scenario.Name}}</h3>
<p class="doc">{{oneLine .Scenario.Doc}}{{if .Scenario.Source}} <span class="source">Source: {{.Scenario.Source}}.</span>{{end}}</p>
{{range .Findings}}{{$run := index .Cell.Runs .Run}}<div class="finding {{$run.Verdict}}" id="{{.Anchor}}">
<h4>{{.Cell.Algorithm}}: {{$run.Verdict}}</h4>
<div class="exp{{if not .Cell.AsExpected}} differ{{end}}">{{.Expectation}} · {{.RunsLine}}</div>
{{with .Shown}}<div class="witnesses">{{range .}}{{template "witness" .}}{{end}}</div>{{end}}
{{with .Folded}}<details class="more"><summary>… {{len .}} more witness{{if gt (len .) 1}}es{{end}}</summary>{{range .}}{{template "witness" .}}{{end}}</details>{{end}}
{{if not .Witnesses}}{{range .Checks}}{{if .Failed}}<div class="witnesses"><div class="witness"><div class="w1"><span class="check">{{.Name}}</span> {{.Verdict}}</div><div class="w2">{{.Detail}}</div></div></div>{{end}}{{end}}{{end}}
<div class="checkline">checks: {{range $i, $c := .Checks}}{{if $i}} · {{end}}{{if $c.Failed}}<b class="bad">{{$c.Name}} {{$c.Verdict}}</b>{{else}}{{$c.Name}} {{$c.Verdict}}{{end}}{{end}}</div>
{{with .FaultsInFull}}<details class="faults"><summary>the faults in full</summary><ul>{{range .}}<li><b>{{.Label}}</b> {{.Desc}}, {{.Span}}</li>{{end}}</ul></details>{{end}}
{{with .Checks}}<details class="checks"><summary>each check's detail</summary><table class="checks">{{range .}}<tr{{if .Failed}} class="failed"{{end}}><td class="name">{{.Name}}</td><td class="v">{{.Verdict}}</td><td>{{.Detail}}</td></tr>{{end}}</table></details>{{end}}
{{range .OwnNotes}}<div class="meta">note: {{.}}</div>{{end}}
{{with .Missing}}<div class="missing">missing: {{join . "; "}}</div>{{end}}
{{with .Timeline}}{{img . "timeline of the run: critical sections per client, faults shaded, the witness framed"}}{{end}}
</div>
{{end}}{{end}}
<h2 id="bench">Benchmark</h2>
{{with .R.Bench}}<p class="meta">Run shown: <code>{{.Dir}}</code>{{with .Why}} ({{.}}){{end}}.</p>
{{with .Partial}}<div class="warn"><b>⚠ A partial lockbench run:</b> {{join . "; "}}. Its figures cover only what it measured; the full sweep is lockbench without flags.</div>{{end}}
<div class="bench">{{$.BenchHTML}}</div>{{else}}<div class="nobench">{{.R.NoBench}}</div>{{end}}

<h2>Scenarios</h2>
<dl class="scenarios">{{range .R.Matrix.Scenarios}}<dt>{{.Name}}</dt><dd>{{oneLine .Doc}}{{if .Source}} <span class="source">Source: {{.Source}}.</span>{{end}}</dd>{{end}}</dl>

<h2>How to read a verdict</h2>
<dl class="verdicts">
<dt>safe</dt><dd>no client was ever inside the critical section together with another (exclusion), the lock never granted overlapping leases (claim), fencing tokens only grew, and after every fault healed a probe acquired the lock in time (liveness).</dd>
<dt>unsafe</dt><dd>a safety check failed. <b>exclusion</b> unsafe with <b>claim</b> safe: the lock kept its promise but a client acted outside its lease (a pause after the validity check); <b>claim</b> unsafe: the algorithm itself granted two overlapping leases (clock jump, failover, restart without fsync); <b>fencing</b> unsafe: the tokens did not protect the resource.</dd>
<dt>deadlock</dt><dd>safe, but after every fault healed the lock could not be acquired within TTL + slack (e.g. a key without TTL left by a crashed client).</dd>
<dt>unknown</dt><dd>the checker could not decide; never counted as a pass.</dd>
<dt>mixed</dt><dd>the pair's runs (different seeds) disagreed.</dd>
</dl>
</body></html>
{{define "ratio"}}<td class="r{{if .Noise}} noise{{end}}"{{if .Measured}} data-median="{{printf "%.4f" .Median}}" data-lower-better="{{.LowerBetter}}"{{end}}><span class="m">{{.Head}}</span>{{with .Sub}}<span class="s">{{.}}</span>{{end}}</td>{{end}}
{{define "witness"}}<div class="witness"><div class="w1"><span class="check">{{.Check}}</span>{{if .Key}} <code>{{.Key}}</code>{{end}} {{.What}}</div>
{{with .Overlap}}<div class="w2">{{.}}</div>{{end}}
<div class="w3">{{if .Faults}}faults: {{range $i, $f := .Faults}}{{if $i}} · {{end}}<b>{{$f.Label}}</b> {{$f.Name}} <i>({{$f.When}})</i>{{end}}{{else}}no fault was active{{end}}</div></div>{{end}}
`
