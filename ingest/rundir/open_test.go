package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// committedRun is a real H100 run of the repository; the facts checked
// against it were read from its manifest.json and folders by hand.
const committedRun = "../../testdata/runs/2026-11-22-h100-003504"

func TestOpenCommittedRun(t *testing.T) {
	r, err := Open(committedRun)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "2026-11-22-h100-003504" || r.Dir != committedRun {
		t.Errorf("name %q dir %q", r.Name, r.Dir)
	}
	m := r.Manifest
	if m == nil {
		t.Fatal("no manifest")
	}
	if m.GPU.Name != "NVIDIA H100 80GB HBM3" || m.GPU.UUID != "GPU-336e22a2-fa02-c151-38d5-97dbdca01eb2" || len(m.Cells) != 24 {
		t.Errorf("gpu %q %q, %d cells; want the H100 GPU-336e22a2-... and 24 cells", m.GPU.Name, m.GPU.UUID, len(m.Cells))
	}
	count := map[string]int{}
	for _, c := range m.Cells {
		for _, p := range c.Passes {
			count[p.Status]++
		}
	}
	if count[StatusOK] != 101 || count[StatusSkipped] != 15 || count[StatusFailed] != 4 {
		t.Errorf("pass statuses %v, want 101 ok, 15 skipped, 4 failed", count)
	}
	st, ok := m.Pass("scan_gate", "megakernel", "B=4,T=2048,d=256,dv=64", PassRange)
	if !ok || st.Status != StatusFailed || st.Attempts != 3 || !strings.Contains(st.Reason, "RecordStatusUnsupportedApi") {
		t.Errorf("scan_gate megakernel range pass %+v", st)
	}

	var timing []string
	err = r.WalkJSON(TimingDir, ".json", func(rel string, data []byte) error {
		if len(data) == 0 || data[0] != '{' {
			t.Errorf("%s: not a JSON object", rel)
		}
		timing = append(timing, rel)
		return nil
	})
	if err != nil || len(timing) != 21 || timing[0] != "gated_ssm/compiled/B=16,T=2048,d=2048,H=16,dk=128,n=16.json" {
		t.Errorf("WalkJSON(raw/timing): %d files, first %q, %v; want 21, gated_ssm/compiled/... first", len(timing), timing[0], err)
	}

	specs, ok := r.Specs()
	if !ok {
		t.Fatal("no specs snapshot")
	}
	for _, exp := range []string{"gated_ssm", "gla_proj", "scan_gate", "swiglu"} {
		if _, err := fs.Stat(specs, exp+"/spec.yaml"); err != nil {
			t.Errorf("specs snapshot: %v", err)
		}
	}
	data, err := r.ReadFile(SpecsPath("swiglu", "claims.yaml"))
	if err != nil || len(data) == 0 {
		t.Errorf("ReadFile(specs/swiglu/claims.yaml): %d bytes, %v", len(data), err)
	}

	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb, err := r.Tables(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	if len(tb.Kernels()) == 0 || len(tb.Timings()) == 0 {
		t.Errorf("tables: %d kernels, %d timings", len(tb.Kernels()), len(tb.Timings()))
	}
	var names []string
	for _, g := range tb.GPUs() {
		names = append(names, g.Name)
	}
	if !strings.Contains(strings.Join(names, ","), m.GPU.Name) {
		t.Errorf("gpus table %v lacks the manifest's %s", names, m.GPU.Name)
	}

	// The same tables written straight into a folder, as rooftool ingest
	// -o does: a run without manifest whose tables are the folder itself.
	dir := filepath.Join(t.TempDir(), "ingested")
	if err := tb.Write(dir, "parquet"); err != nil {
		t.Fatal(err)
	}
	flat, err := Open(dir)
	if err != nil || flat.Manifest != nil || flat.Name != "ingested" {
		t.Fatalf("Open(ingested): %+v, %v", flat, err)
	}
	tf, err := flat.Tables(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Release()
	if len(tf.Kernels()) != len(tb.Kernels()) {
		t.Errorf("folder tables: %d kernels, want %d", len(tf.Kernels()), len(tb.Kernels()))
	}
	if _, ok := flat.Specs(); ok {
		t.Error("a folder without specs/ has a specs snapshot")
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, ManifestFile)) {
		t.Errorf("malformed manifest: %v, want an error naming it", err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Tables(memory.DefaultAllocator); err == nil || !strings.Contains(err.Error(), r.Name) {
		t.Errorf("no tables: %v, want an error naming run %s", err, r.Name)
	}
}

func TestNameOf(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		".":                       filepath.Base(wd),
		"runs/2026-11-22-h100-x/": "2026-11-22-h100-x",
		"/tmp/a/b":                "b",
	} {
		if got := NameOf(in); got != want {
			t.Errorf("NameOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenFS(t *testing.T) {
	fsys := fstest.MapFS{
		"manifest.json": {Data: []byte(handManifest)},
		"raw/check/swiglu/fused/M=512.check.json":  {Data: []byte(`{"ok": true}`)},
		"raw/check/gla_proj/eager/M=64.check.json": {Data: []byte(`{"ok": false}`)},
		"raw/check/gla_proj/eager/M=64.log":        {Data: []byte("not json")},
		"raw/check/swiglu/bad.check.json":          {Data: []byte(`{`)},
		"specs/swiglu/spec.yaml":                   {Data: []byte("name: swiglu\n")},
		"ceilings.json":                            {Data: []byte(`{"rooftool_ceilings": 1}`)},
	}
	r, err := OpenFS("embedded-run", fsys)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir != "" || r.Manifest == nil || r.Manifest.GPU.Name != "NVIDIA H100 80GB HBM3" {
		t.Fatalf("OpenFS: dir %q manifest %+v", r.Dir, r.Manifest)
	}
	if p := r.Path(CeilingsFile); p != "embedded-run/ceilings.json" {
		t.Errorf("Path = %q", p)
	}
	if data, err := r.ReadFile(CeilingsFile); err != nil || string(data) != `{"rooftool_ceilings": 1}` {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	if _, err := r.ReadFile("missing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := r.ReadFile("raw/check"); err == nil || !strings.Contains(err.Error(), "embedded-run/raw/check") {
		t.Errorf("ReadFile of a folder: %v, want an error naming embedded-run/raw/check", err)
	}

	var seen []string
	stop := errors.New("stop")
	err = r.WalkJSON(CheckDir, ".check.json", func(rel string, data []byte) error {
		seen = append(seen, rel)
		if strings.HasPrefix(rel, "swiglu/bad") {
			return stop
		}
		return nil
	})
	if strings.Join(seen, " ") != "gla_proj/eager/M=64.check.json swiglu/bad.check.json" {
		t.Errorf("WalkJSON visited %v, want the .check.json files in lexical order up to the failing one", seen)
	}
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "embedded-run/raw/check/swiglu/bad.check.json") {
		t.Errorf("WalkJSON error %v, want stop naming the file", err)
	}
	calls := 0
	if err := r.WalkJSON(TimingDir, ".json", func(string, []byte) error { calls++; return nil }); err != nil || calls != 0 {
		t.Errorf("WalkJSON over an absent folder: %d calls, %v", calls, err)
	}

	specs, ok := r.Specs()
	if !ok {
		t.Fatal("no specs")
	}
	if data, err := fs.ReadFile(specs, "swiglu/spec.yaml"); err != nil || string(data) != "name: swiglu\n" {
		t.Errorf("specs/swiglu/spec.yaml = %q, %v", data, err)
	}

	bare, err := OpenFS("bare", fstest.MapFS{"specs": {Data: []byte("a file, not a folder")}})
	if err != nil || bare.Manifest != nil {
		t.Fatalf("OpenFS without manifest: %+v, %v", bare, err)
	}
	if _, ok := bare.Specs(); ok {
		t.Error("specs as a file counts as a snapshot")
	}
}
