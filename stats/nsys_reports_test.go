package stats

import (
	"bytes"
	"strings"
	"testing"
)

// cuda_api_sum strips a six-character "_v" suffix, counting characters as
// SQLite's substr(name, -6, 2) does, and nothing else.
func TestAPIName(t *testing.T) {
	for in, want := range map[string]string{
		"cudaLaunchKernel_v7000":       "cudaLaunchKernel",
		"cudaMalloc_v3020":             "cudaMalloc",
		"cudaStreamIsCapturing_v10000": "cudaStreamIsCapturing_v10000", // seven characters
		"cudaLaunchKernel_ptsz_v7000":  "cudaLaunchKernel_ptsz",
		"cudaMemcpyAsync_ptsz":         "cudaMemcpyAsync_ptsz",
		"cuLaunchKernel":               "cuLaunchKernel",
		"_v1234":                       "",
		"v1234":                        "v1234",
		"名前_v7000":                     "名前",
	} {
		if got := apiName(in); got != want {
			t.Errorf("apiName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A report's CSV is Python's csv module's: a field quoted only where it
// holds a comma, a quote or a line break (a leading space is not, where
// Go's encoding/csv would quote it); NULL an empty field; an empty line
// after the rows, or after a SKIPPED line.
func TestReportCSV(t *testing.T) {
	r := &Report{Name: "x", Columns: []ReportColumn{{"A (ns)", ColFigure}, {"Name", ColText}}}
	var b bytes.Buffer
	tab := ReportTable{Report: r, Rows: [][]Cell{{{Text: "1.0"}, {Text: " lead"}}, {{Text: "2"}, {Text: `a "b", c`}}, {{Null: true}, {Text: "x\ny"}}}}
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "A (ns),Name\n1.0, lead\n2,\"a \"\"b\"\", c\"\n,\"x\ny\"\n\n"
	if b.String() != want {
		t.Errorf("CSV %q, want %q", b.String(), want)
	}
	b.Reset()
	tab = ReportTable{Report: r, Skipped: "f.sqlite does not contain CUDA trace data."}
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != "SKIPPED: f.sqlite does not contain CUDA trace data.\n\n" {
		t.Errorf("skipped CSV %q", b.String())
	}
	b.Reset()
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), " ** ") || !strings.Contains(b.String(), "\nSKIPPED: f.sqlite") {
		t.Errorf("skipped table %q", b.String())
	}
}

// Every report has a title, columns, the tables it reads and a check;
// names are unique; --report's lookup names them all when it fails.
func TestNsysReportsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Reports {
		if r.Name == "" || r.Title == "" || len(r.Columns) == 0 || len(r.Tables) == 0 || r.skip == nil || (r.rows == nil) != r.FromSummary {
			t.Errorf("report %+v incomplete", r.Name)
		}
		if seen[r.Name] {
			t.Errorf("report %s twice", r.Name)
		}
		seen[r.Name] = true
		if got, err := LookupReport(r.Name); err != nil || got.Name != r.Name {
			t.Errorf("LookupReport(%s) = %v, %v", r.Name, got, err)
		}
		// An export with none of the tables skips every report.
		if r.Skipped("f", func(string) bool { return false }) == "" {
			t.Errorf("%s runs over an export without tables", r.Name)
		}
		if msg := r.Skipped("f", func(string) bool { return true }); msg != "" {
			t.Errorf("%s skipped over an export with every table: %s", r.Name, msg)
		}
	}
	_, err := LookupReport("nvtx_sum")
	if err == nil || !strings.Contains(err.Error(), strings.Join(ReportNames(), ", ")) {
		t.Errorf("unknown report: %v", err)
	}
}
