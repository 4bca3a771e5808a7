package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/launch/runsummary"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// TestProfileMergeJSON: profile and merge --format json print their
// summaries as one object on stdout with what the text says: the run, the
// GPU, each pass's counts as the manifest has them, the failed cells with
// their reasons, the report written; merge the cells and the runs merged.
// --format csv is bad usage for both.
func TestProfileMergeJSON(t *testing.T) {
	sel := fakeSweep(t)
	tmp := t.TempDir()
	b1, b2, m := filepath.Join(tmp, "B1"), filepath.Join(tmp, "B2"), filepath.Join(tmp, "M")
	text, _ := mustRun(t, exitOK, profileArgs(sel, b1, "--shard", "1/2")...)
	out, _ := mustRun(t, exitOK, profileArgs(sel, b2, "--shard", "2/2", "--format", "json")...)
	var s runsummary.ProfileSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	man, err := rundir.ReadManifest(b2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != runsummary.ProfileJSONVersion || s.Run != b2 || s.GPU != man.GPU.Name || s.Report != filepath.Join(b2, "report.md") {
		t.Errorf("summary %+v", s)
	}
	if _, err := os.Stat(s.Report); err != nil {
		t.Error(err)
	}
	want := runsummary.NewProfileSummary(b2, man)
	if len(s.Passes) != len(want.Passes) || len(s.Passes) == 0 {
		t.Fatalf("passes %+v, the manifest's %+v", s.Passes, want.Passes)
	}
	for i, p := range s.Passes {
		if w := want.Passes[i]; p.Pass != w.Pass || p.OK != w.OK || p.Failed != w.Failed || p.Skipped != w.Skipped {
			t.Errorf("pass %+v, the manifest's %+v", p, w)
		}
	}
	if len(s.Failed) == 0 || !strings.Contains(s.Failed[0].Cell, "/wrong/") || s.Failed[0].Reason == "" {
		t.Errorf("failed %+v, want the wrong variant's check", s.Failed)
	}
	// The text of the other shard says the same kind of facts, line by line.
	for _, w := range []string{"run: " + b1, "gpu: " + man.GPU.Name, "check:", "failed: ", "report: " + filepath.Join(b1, "report.md")} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}

	out, _ = mustRun(t, exitOK, "merge", b1, b2, "-o", m, "--format", "json")
	var ms runsummary.MergeSummary
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mm, err := rundir.ReadManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if ms.Version != runsummary.MergeJSONVersion || ms.Run != m || ms.Cells != len(mm.Cells) || len(ms.From) != 2 || ms.Report != filepath.Join(m, "report.md") || ms.Warnings == nil {
		t.Errorf("merge summary %+v", ms)
	}
	for _, args := range [][]string{profileArgs(sel, filepath.Join(tmp, "C"), "--format", "csv"), {"merge", b1, b2, "-o", filepath.Join(tmp, "M2"), "--format", "csv"}} {
		mustRun(t, exitBadArgs, args...)
	}
}
