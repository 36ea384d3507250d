// Package style is the one stylesheet locksim's HTML pages share: the
// matrix page (matrix.html, package matrix) and the design-review page
// (package review) both show the verdict matrix, and both take its look
// from here, so that a colour means the same on either page.
package style

// Base is the page-wide look both pages start from: the font and the text
// colour. Each page adds its own layout after it.
const Base = `
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #222; }
`

// Matrix styles the verdict matrix that matrix.Matrix.HTMLTable renders,
// its legend (matrix.Legend) and the list of pairs not run under it:
// green safe, red unsafe, orange deadlock, violet unknown, yellow mixed,
// grey skip; a cell that did not meet its expectation has a thick red
// frame and ✗. Only a verdict that is not safe is bold (class notsafe,
// matrix.Cell.NotSafe), as in the Markdown tables.
const Matrix = `
table.matrix { border-collapse: collapse; font-size: 12px; }
table.matrix th, table.matrix td { border: 1px solid #bbb; padding: 3px 5px; text-align: center; vertical-align: middle; }
table.matrix td { min-width: 58px; }
table.matrix thead th { background: #f0f0f0; font-weight: 600; }
table.matrix th.scenario { text-align: left; font-weight: 600; white-space: nowrap; background: #f8f8f8; }
table.matrix td .verdict { font-weight: 400; }
table.matrix td .verdict.notsafe { font-weight: 700; }
table.matrix td .agree, table.matrix td .note, table.matrix td .runs { font-size: 10px; color: #333; }
table.matrix td .runs a { color: #333; margin: 0 2px; }
table.matrix td a.cell { color: inherit; text-decoration: none; }
table.matrix td a.cell:hover { text-decoration: underline; }
.v-safe { background: #cdeccf; }
.v-unsafe { background: #f6b8b8; }
.v-deadlock { background: #fbd29c; }
.v-unknown { background: #dccff0; }
.v-mixed { background: #fff0a0; }
.v-skip { background: #ececec; color: #666; }
.v-na { background: #fafafa; color: #aaa; }
.v-error { background: #444; color: #fff; }
.loose { background-image: repeating-linear-gradient(135deg, transparent 0 5px, rgba(255,255,255,.55) 5px 8px); }
td.differ { outline: 3px solid #c00; outline-offset: -3px; }
td.differ .agree { color: #c00; font-weight: 700; }
.legend span { display: inline-block; padding: 2px 8px; margin: 0 4px 4px 0; border: 1px solid #bbb; font-size: 12px; }
ol.notrun { font-size: 12px; } ol.notrun .cells { color: #777; }
`
