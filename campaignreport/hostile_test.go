package campaignreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"kvparity/engine"
	"kvparity/engine/matrix"
	"kvparity/exceptions"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Issue 40, item 1 ("safe documents"): summary.md and report.md are pasted into pull requests,
// so a value from outside kvparity (the row file, exception records, the journal, a replay's
// output) must stay text there. The documents are rendered with goldmark, a CommonMark and
// GFM implementation (tables, autolinks, strikethrough), with raw HTML let through as GitHub
// lets its allowed tags through, and the HTML is what the checks read.

// hostile are the payloads, each also checked to be still readable once rendered.
var hostile = []string{
	"<script>alert(1)</script>",
	"<img src=x onerror=alert(2)>",
	"</details>",
	"@everyone",
	"[click](javascript:alert(3))",
	"![t](https://evil.test/t.png)",
	"\n# injected heading",
	"``` fence `tick` a|b",
	"<https://evil.test/a> www.evil.test/w x@evil.test",
}

// hostileText is every payload in one value.
var hostileText = strings.Join(hostile, " ")

// rendered is what one rendered document holds that a payload could have made.
type rendered struct {
	html                                                  string
	scripts, onerror, detailsOpen, detailsClose, mentions int // onerror counts every on* handler
	imgs, hrefs, headings                                 []string
}

var (
	tagRe     = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	srcRe     = regexp.MustCompile(`\ssrc="([^"]*)"`)
	hrefRe    = regexp.MustCompile(`\shref="([^"]*)"`)
	headingRe = regexp.MustCompile(`(?s)<h[1-6][^>]*>(.*?)</h[1-6]>`)
	codeRe    = regexp.MustCompile(`(?s)<code[^>]*>.*?</code>`)
	handlerRe = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	anyTagRe  = regexp.MustCompile(`<[^>]*>`)
)

// render renders Markdown as GitHub would: GFM, raw HTML passed through.
func render(t *testing.T, md []byte) rendered {
	t.Helper()
	var b bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &b); err != nil {
		t.Fatal(err)
	}
	r := rendered{html: b.String()}
	// goldmark writes every "<" of text as &lt;: a "<" left in the HTML opens a tag.
	for _, m := range tagRe.FindAllStringSubmatch(r.html, -1) {
		closing, name, attrs := m[1] == "/", strings.ToLower(m[2]), m[3]
		switch {
		case name == "script":
			r.scripts++
		case name == "details" && closing:
			r.detailsClose++
		case name == "details":
			r.detailsOpen++
		case name == "img":
			src := ""
			if s := srcRe.FindStringSubmatch(attrs); s != nil {
				src = s[1]
			}
			r.imgs = append(r.imgs, src)
		case name == "a":
			if h := hrefRe.FindStringSubmatch(attrs); h != nil {
				r.hrefs = append(r.hrefs, html.UnescapeString(h[1]))
			}
		}
		if handlerRe.MatchString(attrs) {
			r.onerror++
		}
	}
	for _, h := range headingRe.FindAllStringSubmatch(r.html, -1) {
		r.headings = append(r.headings, text(h[1]))
	}
	// A mention is "@name" in text; in code GitHub never links it.
	r.mentions = strings.Count(text(codeRe.ReplaceAllString(r.html, " ")), "@everyone")
	return r
}

// text is HTML as a reader reads it: tags gone, entities decoded, on one line.
func text(h string) string {
	return strings.Join(strings.Fields(html.UnescapeString(anyTagRe.ReplaceAllString(h, " "))), " ")
}

// readable is text with what the escaping adds for safety taken away again (the zero-width
// joiner after an "@", the newline symbol of code spans), so a payload can be looked for.
func readable(h string) string {
	s := strings.NewReplacer("\u200d", "", "␤", " ").Replace(text(h))
	return strings.Join(strings.Fields(s), " ")
}

// assertInert checks one rendered document: no script, no event handler, no image but the
// plots (want), the report's own <details> blocks balanced, no heading or link or mention
// made by a payload.
func assertInert(t *testing.T, name string, md []byte, wantImgs []string) rendered {
	t.Helper()
	r := render(t, md)
	var injected, badLinks []string
	for _, h := range r.headings {
		if strings.HasPrefix(h, "injected") {
			injected = append(injected, h)
		}
	}
	for _, h := range r.hrefs {
		// A relative link may hold the payload's words in its path; a scheme or a host is the
		// payload's.
		if u, err := url.Parse(h); err != nil || u.Scheme == "javascript" || strings.Contains(u.Host, "evil.test") {
			badLinks = append(badLinks, h)
		}
	}
	// The report's own blocks are the lines it starts with "<details><summary>".
	own := bytes.Count(md, []byte("\n<details><summary>"))
	t.Logf("%s: %d <script>, %d onerror, %d <img> (%d plots), %d <details> / %d </details> (%d its own), %d heading(s) made by a payload, %d link(s) to javascript: or the payload's host, %d @everyone outside code",
		name, r.scripts, r.onerror, len(r.imgs), len(wantImgs), r.detailsOpen, r.detailsClose, own, len(injected), len(badLinks), r.mentions)
	if r.scripts > 0 || r.onerror > 0 {
		t.Errorf("%s: %d script tag(s), %d onerror attribute(s)", name, r.scripts, r.onerror)
	}
	if !slices.Equal(r.imgs, wantImgs) {
		t.Errorf("%s: %d image(s), want only the plots %q", name, len(r.imgs), wantImgs)
	}
	if r.detailsOpen != own || r.detailsClose != own {
		t.Errorf("%s: %d <details> and %d </details>, the document opens %d itself", name, r.detailsOpen, r.detailsClose, own)
	}
	if len(injected) > 0 {
		t.Errorf("%s: a payload made %d heading(s), the first %q", name, len(injected), injected[0])
	}
	if len(badLinks) > 0 {
		t.Errorf("%s: a payload made %d link(s), the first to %q", name, len(badLinks), badLinks[0])
	}
	if r.mentions > 0 {
		t.Errorf("%s: @everyone mentions %d time(s) outside code", name, r.mentions)
	}
	return r
}

// assertReadable checks that every payload is still there for the reader, as text.
func assertReadable(t *testing.T, name string, r rendered) {
	t.Helper()
	got := readable(r.html)
	for _, p := range hostile {
		if want := strings.Join(strings.Fields(p), " "); !strings.Contains(got, want) {
			t.Errorf("%s: the payload %q is not readable in the rendered text", name, want)
		}
	}
}

// hostileFill sets every string the value reaches (through structs, pointers, slices and maps,
// allocating an element where there is none) to s, except kvparity's own closed vocabularies:
// verdict words and arm names are computed by kvparity, never copied from a file.
func hostileFill(v reflect.Value, s string, depth int) {
	if depth > 12 {
		return
	}
	switch v.Type() {
	case reflect.TypeOf(verdict.Word("")), reflect.TypeOf(engine.Arm("")):
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		hostileFill(v.Elem(), s, depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				hostileFill(v.Field(i), s, depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // raw JSON and bytes: not text of the report
			return
		}
		if v.Len() == 0 {
			v.Set(reflect.Append(v, reflect.New(v.Type().Elem()).Elem()))
		}
		for i := range v.Len() {
			hostileFill(v.Index(i), s, depth+1)
		}
	case reflect.Array:
		for i := range v.Len() {
			hostileFill(v.Index(i), s, depth+1)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		val := reflect.New(v.Type().Elem()).Elem()
		hostileFill(val, s, depth+1)
		key := reflect.New(v.Type().Key()).Elem()
		key.SetString(s)
		v.SetMapIndex(key, val)
	}
}

// Every string of a report at the edge of every cap (and of every section it has none for)
// carries the payloads, all in one value and then each alone (short enough for the summary to
// keep its <details> blocks): summary.md, the job summary and report.md stay inert, and
// report.md, which clips nothing, shows every payload as text.
func TestHostileReportIsInert(t *testing.T) {
	for i, payload := range append([]string{hostileText}, hostile...) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			r := bigReport()
			plots := slices.Clone(r.Plots)
			hostileFill(reflect.ValueOf(r).Elem(), payload, 0)
			r.Plots = plots // the plots' file names are kvparity's
			// A differing pointer is a JSON pointer of the diff: it starts with "/".
			for _, d := range []*DiffSummary{r.Semantic.Diff, r.Arms[0].Instability, r.Arms[1].Instability} {
				for i := range d.Pointers {
					d.Pointers[i] = "/" + d.Pointers[i]
				}
			}
			// summary.md links no image of its own folder (a pasted comment cannot load it);
			// under an image base URL it shows the PNGs from there, and only those.
			assertInert(t, "summary.md", summary(r, ""), nil)
			hosted := make([]string, len(plots))
			for i, p := range plots {
				hosted[i] = "https://plots.example/c/" + pngOf(p)
			}
			assertInert(t, "summary.md with an image base URL", summary(r, "https://plots.example/c"), hosted)
			assertInert(t, "job summary", githubSummary(r), nil)
			got := readable(assertInert(t, "report.md", markdown(r), plots).html)
			if want := strings.Join(strings.Fields(payload), " "); !strings.Contains(got, want) {
				t.Errorf("report.md: the payload %q is not readable in the rendered text", want)
			}
		})
	}
}

// A campaign whose row and exception records carry the payloads (a builtin arm's revision is
// free text, so are the features, the replay arguments, the timing field and the footprint
// note; an exception record's every field): the documents kvparity report writes are inert,
// every payload readable, and report.json keeps the values exactly (JSON needs no escaping).
func TestHostileCampaignIsInert(t *testing.T) {
	tmp := t.TempDir()
	row := engine.TinyRow("", "")
	row.Baseline.Revision = hostileText
	row.Candidate.Revision = "cand" + hostileText
	row.Candidate.Features = []string{"replay-bench", hostileText}
	row.Replay.Args = append(row.Replay.Args, "--x", hostileText)
	row.Perf.FootprintExplained = hostileText
	dir := filepath.Join(tmp, "campaign")
	c, err := engine.Create(row, engine.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	rec := exceptions.ExceptionRecord{ID: "id " + hostileText, Differs: hostileText, Pointers: []string{"/summary/**"},
		Requests: []string{hostileText}, Events: []string{hostileText}, Baseline: hostileText, Candidate: hostileText,
		Cause: hostileText, RegressionTest: hostileText, Impact: hostileText, Disposition: hostileText}
	if _, err := exceptions.PutException(dir, rec); err != nil {
		t.Fatal(err)
	}
	r, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	assertReadable(t, "summary.md", assertInert(t, "summary.md", read(layout.FileSummaryMD), r.Plots))
	assertReadable(t, "report.md", assertInert(t, "report.md", read(layout.FileReportMD), r.Plots))
	var js Report
	if err := json.Unmarshal(read(layout.FileReportJSON), &js); err != nil {
		t.Fatal(err)
	}
	if js.Revisions[0].Revision != hostileText || js.Semantic.Exceptions[0].Cause != hostileText || js.Config.FootprintNote != hostileText {
		t.Errorf("report.json does not keep the values as recorded: %q", js.Revisions[0].Revision)
	}
}

// The matrix report's rows, nodes, reasons and job ends carry the payloads: matrix.md is inert.
func TestHostileMatrixReportIsInert(t *testing.T) {
	v := verdict.Verdicts{Overall: verdict.Of(verdict.Fail, hostileText), Blocked: []string{hostileText}}
	rep := MatrixReport{Campaign: hostileText, Overall: verdict.Of(verdict.Fail, hostileText), Rows: []MatrixReportRow{{
		Document: verdict.NewDocument(verdict.KindRow, v), Row: hostileText, Node: hostileText, JobID: hostileText, CPUs: hostileText,
		Stage: matrix.RowStage(hostileText), BaselineDigest: hostileText, CandidateDigest: hostileText, Environmental: []string{hostileText},
		ReportMD: "javascript:alert(4)//" + hostileText, ReportJSON: hostileText,
	}}}
	assertInert(t, "matrix.md", rep.markdown(), nil)
}
