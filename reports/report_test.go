package reports

import (
	"bytes"
	"path/filepath"
	"testing"

	goldenfile "github.com/rooftool/rooftool/internal/golden"
	"github.com/rooftool/rooftool/verdict"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
)

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func syntheticReport(t *testing.T) *Report {
	t.Helper()
	in := syntheticJudged(t)
	return Build(in)
}

func TestGoldenSynthetic(t *testing.T) {
	r := syntheticReport(t)
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "synthetic.md", md.Bytes())
	golden(t, "synthetic.json", js.Bytes())

	// Deterministic: a second build renders byte-identical output.
	var md2, js2 bytes.Buffer
	r2 := syntheticReport(t)
	WriteMarkdown(&md2, r2)
	WriteJSON(&js2, r2)
	if !bytes.Equal(md.Bytes(), md2.Bytes()) || !bytes.Equal(js.Bytes(), js2.Bytes()) {
		t.Error("two builds of the same input differ")
	}
	// The JSON twin reads back into the same report.
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, back); d != "" {
		t.Errorf("report.json does not round-trip (-built +read):\n%s", d)
	}
}

func TestTableAligned(t *testing.T) {
	var b bytes.Buffer
	Table{Header: []string{"a", "value"}, Align: []Align{Left, Right}, Rows: [][]string{{"µs-long", "1"}, {"x|y", "22.5"}}}.Write(&b)
	want := "" +
		"| a       | value |\n" +
		"| ------- | ----: |\n" +
		"| µs-long |     1 |\n" +
		"| x\\|y    |  22.5 |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func find(t *testing.T, r *Report, exp, claim, shape string) verdict.Decision {
	t.Helper()
	for _, d := range r.Decisions {
		if d.Experiment == exp && d.Claim == claim && (shape == "" || d.Shape == shape) {
			return d
		}
	}
	t.Fatalf("no decision %s/%s at %q", exp, claim, shape)
	return verdict.Decision{}
}

// Facts of a pass the manifest marks failed are not used, even when the
// tables hold rows of that failed attempt: pipeline.Load hands analysis the
// manifest, and the report judges what is left.
func TestMaskFailedPasses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "2026-11-22-synthetic-1")
	writeSyntheticRunDir(t, dir, mem)
	run := openRun(t, dir)
	for i := range run.Manifest.Cells {
		c := &run.Manifest.Cells[i]
		if c.Experiment == "swiglu" && c.Variant == "dual-acc" {
			c.Passes["nsys"] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "superseded: only forward kernels were counted"}
			c.Passes["range"] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "superseded"}
			c.Passes["ncu"] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: "superseded"}
		}
	}
	res, err := pipeline.Load(t.Context(), run, mem)
	if err != nil {
		t.Fatal(err)
	}
	r := Build(Input{Result: *res})
	for _, tc := range []struct{ claim, want string }{
		{"single-kernel", "dual-acc: nsys pass failed: superseded: only forward kernels were counted"},
		{"no-intermediate", "dual-acc: range pass failed: superseded"},
	} {
		d := find(t, r, "swiglu", tc.claim, "M=512,N=4096,K=7168")
		if d.Verdict != verdict.VerdictNotMeasured || d.Reason != tc.want {
			t.Errorf("swiglu/%s: %s (%s), want NOT MEASURED (%s)", tc.claim, d.Verdict, d.Reason, tc.want)
		}
	}
	// Timing was fine: the latency claim still stands.
	if d := find(t, r, "swiglu", "latency", "M=512,N=4096,K=7168"); d.Verdict != verdict.VerdictNoGo {
		t.Errorf("swiglu/latency: %s (%s)", d.Verdict, d.Reason)
	}
}
