package campaignreport

import (
	"strings"
	"testing"
)

// Ordinary values come out of mdText byte for byte: the escaping changes no report of an
// ordinary campaign.
func TestMdTextKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"plain words and 12345 numbers", "runs/det/baseline-1/report.json", "replay_execution_ms", "PASS_WITH_SEMANTIC_EXCEPTIONS",
		"one digest 22a83b9755c9 over 2 repetitions", "Mann–Kendall trend = -2.598 (breach if |Z| > 2.5758)",
		`/metadata/engine_config/decode/preemption_mode "lifo" → "fifo"`, "pressure event #0 vllm_preemption", "CPU 1 was 58% busy",
		"rerun with --isolate", "v1.6.1", "t=53733.617926 ms · pressure event", "(all-cores, threads, sched-noise, cwd)",
		"bounds [X(2), X(7)] = [0.8858, 1.0802] straddle 1.05", "breach if Q(5) > 15.0863 (χ²_5 at 1−α)", "breach if r1 ∉ [-0.8869, 0.6369]",
		"generated:conversation?seed=7&requests=200", "a__b", "résumé_été",
	} {
		if got := mdText(s); got != s {
			t.Errorf("mdText(%q) = %q", s, got)
		}
		if got := mdCode(s); got != "`"+s+"`" {
			t.Errorf("mdCode(%q) = %q", s, got)
		}
	}
}

// Each construct a value could make is escaped for inline text.
func TestMdTextEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<script>x</script>", "&lt;script>x&lt;/script>"},
		{"<img src=x onerror=y>", "&lt;img src=x onerror=y>"},
		{"[a](javascript:b)", `\[a\](javascript:b)`},
		{"![t](https://e.test/t.png)", `!\[t\](https\://e.test/t.png)`},
		{"a\n# h", "a # h"},
		{"# h", `\# h`},
		{"\n# h", ` \# h`},
		{"title #", `title \#`},
		{"@everyone and @org/team", "@\u200deveryone and @\u200dorg/team"},
		{"x@evil.test", `x@evil\.test`},
		{"see www.evil.test", `see www\.evil.test`},
		{"*a* _b_ ~c~ `d` $e$", `\*a\* \_b\_ \~c\~ \` + "`d\\`" + ` \$e\$`},
		{"snake_case_name", "snake_case_name"},
		{"1. x", `1\. x`},
		{"- x", `\- x`},
		{"> q", `\> q`},
		{"R&D &lt; &#60; &#x3c;", "R&D &amp;lt; &amp;#60; &amp;#x3c;"},
		{"[x]: https://e.test", `\[x\]: https\://e.test`},
		{"[ ] task", `\[ ] task`},
		{"a [b][c]", `a \[b\][c]`},
		{"_a_ a_ _a __a__", `\_a\_ a\_ \_a \_\_a\_\_`},
		{`a\b`, `a\\b`},
		{"\x1b[31m\x00", "␛[31m␀"},
	} {
		if got := mdText(c.in); got != c.want {
			t.Errorf("mdText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// mdClip is clipTo for ordinary text and never cuts inside an escape.
func TestMdClip(t *testing.T) {
	long := strings.Repeat("a long explanation 12345 /per_request/17/ttft_ms ", 20)
	if got, want := mdClip(long, 160), clipTo(long, 160); got != want {
		t.Errorf("mdClip %q, clipTo %q", got, want)
	}
	if got := mdClip("<<<<", 10); got != "&lt;&lt;…" {
		t.Errorf("mdClip(<<<<, 10) = %q", got)
	}
	if got := mdClip("a\nb", 10); got != "a b" {
		t.Errorf("mdClip(a\\nb) = %q", got)
	}
}

func TestMdCode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"a`b", "``a`b``"},
		{"`a", "`` `a ``"},
		{"a``` b", "````a``` b````"},
		{"rev\n# h", "`rev␤# h`"},
		{" a ", "`  a  `"},
	} {
		if got := mdCode(c.in); got != c.want {
			t.Errorf("mdCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMdFenceHtmlTextCellURL(t *testing.T) {
	if got := mdFence("toml", "a = 1\n```\n"); got != "````toml\na = 1\n```\n````" {
		t.Errorf("mdFence = %q", got)
	}
	if got := mdFence("", "x"); got != "```\nx\n```" {
		t.Errorf("mdFence = %q", got)
	}
	if got := htmlText("</details> @x \"q\"\n&"); got != "&lt;/details&gt; @\u200dx &quot;q&quot; &amp;" {
		t.Errorf("htmlText = %q", got)
	}
	if got := cell("a|b\nc"); got != `a\|b c` {
		t.Errorf("cell = %q", got)
	}
	if got := mdURL("vllm-agg_1/report.md"); got != "vllm-agg_1/report.md" {
		t.Errorf("mdURL = %q", got)
	}
	if got := mdURL("javascript:alert(1) x"); got != "javascript%3Aalert%281%29%20x" {
		t.Errorf("mdURL = %q", got)
	}
	if got := mdf("the %s revision %q (%d)", "base_line", "<b>\n", 3); got != `the base_line revision "&lt;b>\\n" (3)` {
		t.Errorf("mdf = %q", got)
	}
}
