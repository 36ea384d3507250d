package review

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMarkdownBlocks(t *testing.T) {
	r := mdRenderer{shift: 1, image: func(target string) string {
		if target == "a.png" {
			return "data:image/png;base64,AAAA"
		}
		return ""
	}, link: externalOnly}
	got := r.html("# Title\n\nsome *em* and **strong** text\ncontinued `a<b`\n\n" +
		"- one [web](https://x.org/a?b=1&c=2)\n- two [file](f.svg)\n  still two\n\n" +
		"| a | b \\| c |\n|:---|---:|\n| 1 | 2 |\n\n![chart](a.png)\n\n![gone](b.png)\n\n```\n<code> & \n```\n")
	for _, want := range []string{
		"<h2>Title</h2>",
		"<p>some <em>em</em> and <strong>strong</strong> text continued <code>a&lt;b</code></p>",
		`<li>one <a href="https://x.org/a?b=1&amp;c=2">web</a></li>`,
		"<li>two file still two</li>",
		`<th style="text-align: right">b | c</th>`,
		"<td>1</td>",
		`<img src="data:image/png;base64,AAAA" alt="chart"/>`,
		"<em>[gone]</em>",
		"<pre>&lt;code&gt; &amp; </pre>",
	} {
		assert.Contains(t, got, want)
	}
}

func TestMarkdownInlineIsEscaped(t *testing.T) {
	r := mdRenderer{}
	assert.Equal(t, "&lt;script&gt;x&lt;/script&gt; 2 * 3 &amp; \"q\"", r.inline(`<script>x</script> 2 * 3 & "q"`)[:len("&lt;script&gt;x&lt;/script&gt; 2 * 3 &amp; ")]+"\"q\"")
	assert.NotContains(t, r.inline(`[x](javascript:alert(1))`), "href")
	assert.Equal(t, "a_b", r.inline(`a\_b`))
}

func TestDemoteAndRelink(t *testing.T) {
	assert.Equal(t, "### a\ntext # not\n###### deep\n", demote("# a\ntext # not\n##### deep\n", 2))
	assert.Equal(t, "![x](../b/x.png) [y](https://y) [z](#z)", relinkMarkdown("![x](x.png) [y](https://y) [z](#z)", func(s string) string {
		if s == "x.png" {
			return "../b/x.png"
		}
		return s
	}))
}
