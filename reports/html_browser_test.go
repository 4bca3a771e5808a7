package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// browserNames are the headless-capable browsers the browser tests look
// for on PATH, in order.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// browser returns the first of browserNames on PATH, or skips the test.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skipf("no headless browser on PATH (looked for %s); apt-get install chromium to run this test", strings.Join(browserNames, ", "))
	return ""
}

// runBrowser runs the browser headless on the page with args and returns
// its stdout. Each call gets its own profile directory, so parallel tests
// and a running desktop browser do not collide.
func runBrowser(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--disable-extensions", "--user-data-dir=" + t.TempDir(),
	}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(all, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

var (
	imgTag     = regexp.MustCompile(`<img\b[^>]*>`)
	dataImgSrc = regexp.MustCompile(`\ssrc="data:image/(?:png|svg\+xml);base64,[A-Za-z0-9+/=]+"`)
)

// checkDOM checks the DOM the browser built from page: a row per shown
// decision carrying its verdict, and as many <img> elements as page has,
// each with a data: URI.
func checkDOM(t *testing.T, r *Report, page, dom string) {
	t.Helper()
	if !strings.Contains(dom, "<table") {
		t.Fatalf("the DOM has no table (%d bytes):\n%.2000s", len(dom), dom)
	}
	_, ds, _ := shownExperiments(r)
	if len(ds) == 0 {
		t.Fatal("the report shows no decision")
	}
	if n := strings.Count(dom, `<tr id="d`); n != len(ds) {
		t.Errorf("the DOM has %d decision rows, want %d", n, len(ds))
	}
	for i, d := range ds {
		row := regexp.MustCompile(`<tr id="d` + strconv.Itoa(i+1) + `">(?s:.*?)</tr>`).FindString(dom)
		if row == "" {
			t.Errorf("decision %d (%s/%s): no row in the DOM", i+1, d.Experiment, d.Claim)
			continue
		}
		if !strings.Contains(row, ">"+d.Verdict+"<") {
			t.Errorf("decision %d (%s/%s): the row lacks its verdict %s:\n%s", i+1, d.Experiment, d.Claim, d.Verdict, row)
		}
	}
	checkImgs(t, page, dom)
}

var (
	pageRow    = regexp.MustCompile(`(?m)^<tr id="(d[0-9]+)">.*?class="nw (?:go|nogo|inc|nm)"[^>]*>([^<]+)<`)
	verdictTag = regexp.MustCompile(`class="nw (?:go|nogo|inc|nm)"[^>]*>([^<]+)<`)
)

// checkDOMRows checks the DOM against the page it was built from: every
// decision row of page is in the DOM with the same verdict, and every
// <img> of page is in the DOM with a data: URI.
func checkDOMRows(t *testing.T, page, dom string) {
	t.Helper()
	rows := pageRow.FindAllStringSubmatch(page, -1)
	if len(rows) == 0 {
		t.Fatal("the page has no decision row")
	}
	if n := strings.Count(dom, `<tr id="d`); n != len(rows) {
		t.Errorf("the DOM has %d decision rows, the page %d", n, len(rows))
	}
	for _, m := range rows {
		row := regexp.MustCompile(`<tr id="` + m[1] + `">(?s:.*?)</tr>`).FindString(dom)
		if v := verdictTag.FindStringSubmatch(row); v == nil || v[1] != m[2] {
			t.Errorf("decision %s: the DOM row lacks its verdict %s:\n%.1000s", m[1], m[2], row)
		}
	}
	checkImgs(t, page, dom)
}

// checkImgs checks the DOM has as many <img> elements as page, at least
// one, each with a data: URI.
func checkImgs(t *testing.T, page, dom string) {
	t.Helper()
	want := len(imgTag.FindAllString(page, -1))
	if want == 0 {
		t.Fatal("the page embeds no plot")
	}
	imgs := imgTag.FindAllString(dom, -1)
	if len(imgs) != want {
		t.Errorf("the DOM has %d <img>, the page %d", len(imgs), want)
	}
	for _, img := range imgs {
		if !dataImgSrc.MatchString(img) {
			t.Errorf("an <img> without a data: URI: %.200s", img)
		}
	}
}

// checkScreenshot takes a screenshot of page and checks it is a PNG of the
// window's size with something drawn on it.
func checkScreenshot(t *testing.T, bin, page, out string) {
	t.Helper()
	const w, h = 1400, 2000
	runBrowser(t, bin, page, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), "--screenshot="+out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", out, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	if blank(img) {
		t.Error("the screenshot is one colour: nothing was rendered")
	}
}

// blank reports whether every pixel of img has the same colour.
func blank(img image.Image) bool {
	b := img.Bounds()
	r0, g0, b0, a0 := img.At(b.Min.X, b.Min.Y).RGBA()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if r, g, bl, a := img.At(x, y).RGBA(); r != r0 || g != g0 || bl != b0 || a != a0 {
				return false
			}
		}
	}
	return true
}

// keepShot copies a screenshot to $ROOFTOOL_SCREENSHOTS, where set, to be
// looked at after the test.
func keepShot(t *testing.T, src, name string) {
	dir := os.Getenv("ROOFTOOL_SCREENSHOTS")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(src)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	if err != nil {
		t.Errorf("keeping the screenshot: %v", err)
	}
}

// TestHTMLInBrowser renders the synthetic report's HTML in a headless
// browser: the DOM keeps every decision row and every embedded plot, and a
// screenshot draws the page.
func TestHTMLInBrowser(t *testing.T) {
	bin := browser(t)
	r := syntheticReport(t)
	page := renderHTML(t, r, plotFiles(r))
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	checkDOM(t, r, page, string(runBrowser(t, bin, file, "--dump-dom")))
	shot := filepath.Join(dir, "report.png")
	checkScreenshot(t, bin, file, shot)
	keepShot(t, shot, "synthetic.png")
}

// TestCommittedHTMLInBrowser does the same for the committed default run,
// rendered as `rooftool report --format html` would, real plots included.
func TestCommittedHTMLInBrowser(t *testing.T) {
	bin := browser(t)
	run := openCommitted(t, "")
	out := filepath.Join(t.TempDir(), "out")
	if err := writeRunMem(context.Background(), run, out, []string{FormatHTML}, nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(out, "report.html")
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(out, "report.png")
	checkScreenshot(t, bin, file, shot)
	keepShot(t, shot, run.Name+".png")
	checkDOMRows(t, string(page), string(runBrowser(t, bin, file, "--dump-dom")))
}

// fitScript, appended to a copy of a report (report.html itself has no
// script), measures the decisions table as laid out and writes the
// figures into the DOM as JSON in <pre id="fit">.
const fitScript = `<script>
(function () {
  var t = document.querySelector("table.decisions");
  var r = {viewport: window.innerWidth, page: document.documentElement.scrollWidth, table: -1, overflowing: []};
  if (t) {
    r.table = Math.ceil(t.getBoundingClientRect().right);
    t.querySelectorAll("th, td").forEach(function (c) {
      if (c.scrollWidth > c.clientWidth + 1) r.overflowing.push(c.textContent.slice(0, 60));
    });
  }
  var p = document.createElement("pre");
  p.id = "fit";
  p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
})();
</script>`

var (
	fitPre  = regexp.MustCompile(`<pre id="fit">([^<]*)</pre>`)
	tagRe   = regexp.MustCompile(`<[^>]*>`)
	rawMath = regexp.MustCompile(`\$[^$\s][^$]{0,200}?\$|\\(?:times|le|ge|approx|cdot|frac)\b`)
)

// fitWidths are the window widths the page must fit: chromium's smallest
// headless window (a phone's width, where the decisions table becomes one
// card per decision) and a laptop's.
var fitWidths = []int{500, 1280}

// checkFits renders page in a window width px wide and checks it fits:
// the page no wider than the window (wide tables scroll inside their own
// box), the decisions table inside it with no cell whose content overflows,
// and no raw TeX math left in the text. A screenshot at that width goes to
// $ROOFTOOL_SCREENSHOTS as name-WIDTH.png where that is set.
func checkFits(t *testing.T, bin, page string, width int, name string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(strings.Replace(page, "</body>", fitScript+"\n</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	size := "--window-size=" + strconv.Itoa(width) + ",900"
	dom := string(runBrowser(t, bin, file, size, "--dump-dom"))
	m := fitPre.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script left no result in the DOM (%d bytes)", len(dom))
	}
	var fit struct {
		Viewport, Page, Table int
		Overflowing           []string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &fit); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	if fit.Viewport != width {
		t.Fatalf("the window is %d px wide, want %d", fit.Viewport, width)
	}
	if fit.Table < 0 {
		t.Fatal("the page has no table.decisions")
	}
	if fit.Table > width {
		t.Errorf("the decisions table ends at %d px, past the %d px window: it scrolls sideways", fit.Table, width)
	}
	if fit.Page > width {
		t.Errorf("the page is %d px wide in a %d px window: it scrolls sideways", fit.Page, width)
	}
	if len(fit.Overflowing) > 0 {
		t.Errorf("%d decisions-table cell(s) overflow their column: %q", len(fit.Overflowing), fit.Overflowing)
	}
	text := html.UnescapeString(tagRe.ReplaceAllString(dom, " "))
	if raw := rawMath.FindAllString(text, 5); len(raw) > 0 {
		t.Errorf("raw TeX math in the rendered text: %q", raw)
	}
	if os.Getenv("ROOFTOOL_SCREENSHOTS") != "" {
		shot := filepath.Join(dir, "shot.png")
		runBrowser(t, bin, file, size, "--screenshot="+shot)
		keepShot(t, shot, name+"-"+strconv.Itoa(width)+".png")
	}
}

// TestHTMLFitsWindow renders the synthetic report and the committed
// default run at each of fitWidths: the page never scrolls sideways, the
// decisions table fits the window and the claims' math reads as text.
func TestHTMLFitsWindow(t *testing.T) {
	bin := browser(t)
	r := syntheticReport(t)
	synthetic := renderHTML(t, r, plotFiles(r))
	run := openCommitted(t, "")
	out := filepath.Join(t.TempDir(), "out")
	if err := writeRunMem(context.Background(), run, out, []string{FormatHTML}, nil); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range fitWidths {
		t.Run(fmt.Sprintf("synthetic/%d", w), func(t *testing.T) { checkFits(t, bin, synthetic, w, "synthetic") })
		t.Run(fmt.Sprintf("committed/%d", w), func(t *testing.T) { checkFits(t, bin, string(committed), w, run.Name) })
	}
}

// foldScript, appended to a copy of a report, writes where the answer table
// is laid out (its top and bottom in CSS pixels from the top of the page,
// its rows and the first one's id) into the DOM as JSON in <pre id="fold">.
const foldScript = `<script>
(function () {
  var t = document.querySelector("table.answer");
  var r = {top: -1, bottom: -1, rows: 0, firstRow: ""};
  if (t) {
    var b = t.getBoundingClientRect();
    r.top = b.top + window.scrollY;
    r.bottom = b.bottom + window.scrollY;
    r.rows = t.querySelectorAll("tbody tr").length;
    var first = t.querySelector("tbody tr");
    if (first) r.firstRow = first.id;
  }
  var p = document.createElement("pre");
  p.id = "fold";
  p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
})();
</script>`

var foldPre = regexp.MustCompile(`<pre id="fold">([^<]*)</pre>`)

// checkAboveFold lays page out in a 1280 x 800 window and checks that the
// answer table, with a row per answer the report shows, ends above the
// window's bottom edge: what a reader sees before scrolling. A screenshot
// goes to $ROOFTOOL_SCREENSHOTS as name-fold.png where that is set.
func checkAboveFold(t *testing.T, bin string, r *Report, page, name string) {
	t.Helper()
	const w, h = 1280, 800
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(strings.Replace(page, "</body>", foldScript+"\n</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	size := "--window-size=" + strconv.Itoa(w) + "," + strconv.Itoa(h)
	dom := string(runBrowser(t, bin, file, size, "--dump-dom"))
	m := foldPre.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script left no result in the DOM (%d bytes)", len(dom))
	}
	var fold struct {
		Window      int
		Top, Bottom float64
		Rows        int
		FirstRow    string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &fold); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	// The page's layout does not depend on the window's height (its CSS has
	// no vh units), and --dump-dom lays it out in a shorter viewport than
	// the window; the fold is the bottom of the screenshot, which is the
	// window's size (checked below).
	rows, _ := answerRows(r)
	if fold.Top < 0 || fold.Rows != len(rows) || len(rows) == 0 {
		t.Fatalf("the answer table: top %.0f px, %d rows; want it with the report's %d answers", fold.Top, fold.Rows, len(rows))
	}
	if want := "a" + strconv.Itoa(rows[0].N); fold.FirstRow != want {
		t.Errorf("the answer table's first row is %q, want %q", fold.FirstRow, want)
	}
	if fold.Bottom >= h {
		t.Errorf("the answer table ends at %.0f px, below the fold of a %d px high window", fold.Bottom, h)
	}
	shot := filepath.Join(dir, "shot.png")
	runBrowser(t, bin, file, size, "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if cfg.Width != w || cfg.Height != h {
		t.Errorf("the screenshot is %dx%d, want the window's %dx%d", cfg.Width, cfg.Height, w, h)
	}
	keepShot(t, shot, name+"-fold.png")
}

// TestHTMLAnswerAboveFold: report.html of the synthetic report and of the
// committed default run, in a 1280 x 800 window, shows the whole answer
// table before any scrolling.
func TestHTMLAnswerAboveFold(t *testing.T) {
	bin := browser(t)
	r := syntheticReport(t)
	t.Run("synthetic", func(t *testing.T) { checkAboveFold(t, bin, r, renderHTML(t, r, plotFiles(r)), "synthetic") })
	run := openCommitted(t, "")
	out := filepath.Join(t.TempDir(), "out")
	if err := writeRunMem(context.Background(), run, out, []string{FormatHTML, FormatJSON}, nil); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var committed Report
	if err := json.Unmarshal(data, &committed); err != nil {
		t.Fatal(err)
	}
	t.Run("committed", func(t *testing.T) { checkAboveFold(t, bin, &committed, string(page), run.Name) })
}
