package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/shard"
)

// fakeSweep readies the fake runner and profilers of launch and
// returns the flags of a small sweep over them.
func fakeSweep(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH: the fake runner and profilers are Python scripts")
	}
	for _, k := range []string{"FAKE_LOG", "FAKE_NCU_PERM", "FAKE_NSYS_NOLIB", "FAKE_CODE", "FAKE_NCU_LOG", "FAKE_RANGE_FAIL", "FAKE_RANGE_PARTIAL", "FAKE_APPRANGE_FAIL", "FAKE_APPRANGE_PARTIAL"} {
		t.Setenv(k, "")
	}
	bin, err := filepath.Abs("../../launch/testdata/bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")) // the fake nvidia-smi
	// The fake experiment with claims, so that the report decides.
	kdir := filepath.Join(t.TempDir(), "kernels")
	if err := os.CopyFS(kdir, os.DirFS("../../launch/testdata/kernels")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kdir, "fake", "claims.yaml"), []byte(fakeClaims), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--kernels", kdir, "--variant", "good", "--variant", "after", "--variant", "wrong"}
}

const fakeClaims = `experiment: fake
claims:
  - id: speedup-after
    seed: "000"
    line: 1
    quote: "after is faster"
    metric: speedup
    candidate: after
    baseline: good
    op: ">"
    threshold: 1.1
    shapes: ["n=1", "n=2"]
  - id: dram-after
    seed: "000"
    line: 2
    quote: "after moves less"
    metric: dram_ratio
    candidate: after
    baseline: good
    op: "<"
    threshold: 0.5
    shapes: ["n=1", "n=2"]
`

func mustRun(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != want {
		t.Fatalf("rooftool %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, o.String(), e.String())
	}
	return o.String(), e.String()
}

// profileArgs runs the fake sweep with one range process per cell: the fake
// ncu gives a shared process's later ranges partial, as the real one can, so
// with per-experiment processes a cell's range_process (shared, or retried
// alone) depends on which cells shared its process, which differs between a
// whole run and its shards; per-cell keeps the runs comparable line by line.
func profileArgs(sel []string, out string, extra ...string) []string {
	args := append([]string{"profile", "--gpu", "h100", "--ncu", "../../launch/testdata/bin/ncu", "--nsys", "../../launch/testdata/bin/nsys", "--range-process", "per-cell", "-o", out}, sel...)
	return append(args, extra...)
}

// shardRenamed matches the prefix merge gives an export whose name two
// shards share.
var shardRenamed = regexp.MustCompile(`shard[0-9]+-`)

// runDecisions is a run's report.json without what names the run, its
// times and its files.
func runDecisions(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	out := string(rep["decisions"]) + "\n" + string(rep["experiments"])
	if len(rep["decisions"]) < 10 {
		t.Fatalf("%s: report.json has no decisions", dir)
	}
	return shardRenamed.ReplaceAllString(out, "")
}

// runTables is every row of a run's tables as sorted JSON lines.
func runTables(t *testing.T, dir string) map[string][]string {
	t.Helper()
	r, err := rundir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := r.Tables(memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	out := map[string][]string{}
	// Row IDs, correlation IDs and timeline times are per export; a
	// shard's nsys export starts its own. Rows that describe an export
	// (gpus, meta) come once per export: compared as sets.
	add := func(name string, rows any) {
		var v []map[string]any
		data, _ := json.Marshal(rows)
		json.Unmarshal(data, &v)
		for _, row := range v {
			for _, k := range []string{"ID", "KernelID", "ParentID", "CorrelationID", "StartNs", "EndNs", "GraphNodeID"} {
				delete(row, k)
			}
			b, _ := json.Marshal(row)
			out[name] = append(out[name], shardRenamed.ReplaceAllString(string(b), ""))
		}
		slices.Sort(out[name])
		if name == "gpus" || name == "meta" {
			out[name] = slices.Compact(out[name])
		}
	}
	add("kernels", tb.Kernels())
	add("metrics", tb.Metrics())
	add("ranges", tb.Ranges())
	add("gpus", tb.GPUs())
	add("meta", tb.Metas())
	add("timings", tb.Timings())
	return out
}

// TestShardMerge runs a sweep whole and in two shards, merges the shards
// and checks the merged run decides and tabulates as the whole one does.
func TestShardMerge(t *testing.T) {
	sel := fakeSweep(t)
	tmp := t.TempDir()
	a, b1, b2, m := filepath.Join(tmp, "A"), filepath.Join(tmp, "B1"), filepath.Join(tmp, "B2"), filepath.Join(tmp, "M")
	mustRun(t, exitOK, profileArgs(sel, a)...)
	mustRun(t, exitOK, profileArgs(sel, b1, "--shard", "1/2")...)
	mustRun(t, exitOK, profileArgs(sel, b2, "--shard", "2/2")...)

	// The plan names the same split the shards ran.
	planOut, _ := mustRun(t, exitOK, append([]string{"plan", "--shard-count", "2", "--format", "json"}, sel...)...)
	var plan launch.PlanReport
	if err := json.Unmarshal([]byte(planOut), &plan); err != nil {
		t.Fatal(err)
	}
	ma, _ := rundir.ReadManifest(a)
	m1, _ := rundir.ReadManifest(b1)
	m2, _ := rundir.ReadManifest(b2)
	if m1.Shard != "1/2" || m2.Shard != "2/2" || m1.PlanHash != plan.PlanHash || m2.PlanHash != plan.PlanHash {
		t.Fatalf("shard manifests: %q %q %q %q, plan %q", m1.Shard, m1.PlanHash, m2.Shard, m2.PlanHash, plan.PlanHash)
	}
	if len(m1.Cells)+len(m2.Cells) != len(ma.Cells) || len(plan.Cells) != len(ma.Cells) {
		t.Fatalf("cells: %d + %d in the shards, %d in the plan, %d whole", len(m1.Cells), len(m2.Cells), len(plan.Cells), len(ma.Cells))
	}
	for _, r := range plan.Cells {
		want := m1
		if r.Shard == 2 {
			want = m2
		}
		p := strings.SplitN(r.Cell, "/", 3)
		if _, ok := want.Pass(p[0], p[1], p[2], "check"); !ok {
			t.Errorf("plan puts %s in shard %d; that shard did not run it", r.Cell, r.Shard)
		}
	}
	again, _ := mustRun(t, exitOK, append([]string{"plan", "--shard-count", "2", "--format", "json"}, sel...)...)
	if again != planOut {
		t.Errorf("plan is not deterministic")
	}
	// With --costs-from a run that measured the cells, the table predicts
	// seconds from it and names it.
	costed, _ := mustRun(t, exitOK, append([]string{"plan", "--costs-from", a}, sel...)...)
	if plan.CostUnit != shard.CostShapeUnits || !strings.Contains(costed, "SECONDS") || !strings.Contains(costed, " measured ") ||
		!strings.Contains(costed, "predicted from "+a) || !strings.Contains(costed, "SHARD  CELLS  PREDICTED (s)\n") {
		t.Errorf("cost unit %q; table with --costs-from:\n%s", plan.CostUnit, costed)
	}

	mustRun(t, exitOK, "merge", b1, b2, "-o", m)
	// The shards kept each range claim's cells together: the merged run
	// decides, replays and reasons included, as the whole run.
	if got, want := runDecisions(t, m), runDecisions(t, a); got != want {
		t.Errorf("merged report differs from the whole run's:\n got %s\nwant %s", got, want)
	}
	ta, tm := runTables(t, a), runTables(t, m)
	for name, rows := range ta {
		if !slices.Equal(rows, tm[name]) {
			t.Errorf("table %s: merged %d rows, whole %d:\n got %v\nwant %v", name, len(tm[name]), len(rows), tm[name], rows)
		}
	}
	mm, err := rundir.ReadManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range mm.Cells {
		for p, st := range c.Passes {
			for _, f := range st.Files {
				if _, err := os.Stat(filepath.Join(m, filepath.FromSlash(f))); err != nil {
					t.Errorf("%s [%s]: %v", c.Key(), p, err)
				}
			}
		}
	}
	if len(mm.MergedFrom) != 2 || mm.Shard != "" || mm.PlanHash != plan.PlanHash {
		t.Errorf("merged manifest: merged_from %v, shard %q, plan %q", mm.MergedFrom, mm.Shard, mm.PlanHash)
	}
	mustRun(t, exitOK, "report", m)

	// Shards whose SQLite exports were gzipped after the run (as committed
	// runs keep them; their manifests still name x.sqlite, which ingest
	// reads from x.sqlite.gz) merge to the same tables: a colliding
	// export renamed shard2-x.sqlite.gz is named so in the merged cells.
	g1, g2, mg := filepath.Join(tmp, "G1"), filepath.Join(tmp, "G2"), filepath.Join(tmp, "MG")
	gz := 0
	for _, p := range [][2]string{{b1, g1}, {b2, g2}} {
		if err := os.CopyFS(p[1], os.DirFS(p[0])); err != nil {
			t.Fatal(err)
		}
		gz += gzipExports(t, filepath.Join(p[1], rundir.RawDir))
	}
	if gz < 2 {
		t.Fatalf("%d SQLite exports gzipped, want both shards'", gz)
	}
	mustRun(t, exitOK, "merge", g1, g2, "-o", mg, "--no-report")
	tg := runTables(t, mg)
	for name, rows := range ta {
		if !slices.Equal(rows, tg[name]) {
			t.Errorf("gzipped exports: table %s: merged %d rows, whole %d", name, len(tg[name]), len(rows))
		}
	}
	mgm, err := rundir.ReadManifest(mg)
	if err != nil {
		t.Fatal(err)
	}
	renamed := false
	for _, c := range mgm.Cells {
		for _, f := range c.Passes[rundir.PassNsys].Files {
			renamed = renamed || strings.Contains(f, "/shard2-")
		}
	}
	if !renamed {
		t.Errorf("no merged cell names the renamed export of shard 2: %+v", mgm.Cells)
	}

	// Shards that came back without their .ncu-rep/.nsys-rep (the device
	// scripts leave them on the GPU machine): every raw file the merged
	// manifest names, a pass's or a range replay's, is named by the cells of
	// one shard only, and each that exists holds the bytes of the file its
	// shard's manifest named for the cell.
	r1, r2, mr := filepath.Join(tmp, "R1"), filepath.Join(tmp, "R2"), filepath.Join(tmp, "MR")
	for _, p := range [][2]string{{b1, r1}, {b2, r2}} {
		if err := os.CopyFS(p[1], os.DirFS(p[0])); err != nil {
			t.Fatal(err)
		}
		removeReps(t, filepath.Join(p[1], rundir.RawDir))
	}
	mustRun(t, exitOK, "merge", r1, r2, "-o", mr, "--no-report")
	mrm, err := rundir.ReadManifest(mr)
	if err != nil {
		t.Fatal(err)
	}
	shardOf := map[cellkey.Key]string{}
	shardDir := map[string]string{"1/2": r1, "2/2": r2}
	for _, sm := range []*rundir.Manifest{m1, m2} {
		for _, c := range sm.Cells {
			shardOf[c.Key()] = sm.Shard
		}
	}
	namedBy := map[string]map[string]bool{}
	replayFiles := 0
	for _, c := range mrm.Cells {
		sh := shardOf[c.Key()]
		for p, st := range c.Passes {
			files := slices.Clone(st.Files)
			var origFiles []string
			if o, ok := map[string]*rundir.Manifest{"1/2": m1, "2/2": m2}[sh].Pass(c.Experiment, c.Variant, c.Shape, p); ok {
				origFiles = slices.Clone(o.Files)
				for _, r := range o.Replays {
					origFiles = append(origFiles, r.Files...)
				}
			}
			for _, r := range st.Replays {
				files = append(files, r.Files...)
				replayFiles += len(r.Files)
			}
			if len(files) != len(origFiles) {
				t.Fatalf("%s [%s]: %d files merged, %d in its shard", c.Key(), p, len(files), len(origFiles))
			}
			for j, f := range files {
				if namedBy[f] == nil {
					namedBy[f] = map[string]bool{}
				}
				namedBy[f][sh] = true
				got, err := os.ReadFile(filepath.Join(mr, filepath.FromSlash(f)))
				if err != nil {
					continue // not brought back (a .ncu-rep or .nsys-rep)
				}
				want, err := os.ReadFile(filepath.Join(shardDir[sh], filepath.FromSlash(origFiles[j])))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s [%s]: %s does not hold its shard's %s (%v)", c.Key(), p, f, origFiles[j], err)
				}
			}
		}
	}
	if replayFiles == 0 {
		t.Fatalf("no range replay names a file: the check would prove nothing")
	}
	for f, shards := range namedBy {
		if len(shards) > 1 {
			t.Errorf("%s is named by cells of shards %v", f, slices.Sorted(maps.Keys(shards)))
		}
	}

	// Runs that do not belong together.
	edit := func(name string, f func(*rundir.Manifest)) string {
		d := filepath.Join(tmp, name)
		if err := os.CopyFS(d, os.DirFS(b2)); err != nil {
			t.Fatal(err)
		}
		mf, err := rundir.ReadManifest(d)
		if err != nil {
			t.Fatal(err)
		}
		f(mf)
		if err := mf.Write(d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	commit := edit("commit", func(m *rundir.Manifest) { m.GitCommit = "0123456789abcdef" })
	gpu := edit("gpu", func(m *rundir.Manifest) { m.GPU.Name = "NVIDIA A100-SXM4-80GB" })
	hash := edit("hash", func(m *rundir.Manifest) { m.PlanHash = "ffffffffffffffff" })
	specs := edit("specs", func(*rundir.Manifest) {})
	sp := filepath.Join(specs, "specs", "fake", "spec.yaml")
	if data, err := os.ReadFile(sp); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(sp, append(data, "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"commit", []string{"merge", b1, commit, "-o", filepath.Join(tmp, "x1")}, exitBadArgs, "git commits differ"},
		{"gpu", []string{"merge", b1, gpu, "-o", filepath.Join(tmp, "x2")}, exitBadArgs, "GPU models differ"},
		{"plan hash", []string{"merge", b1, hash, "-o", filepath.Join(tmp, "x3")}, exitBadArgs, "plan hashes differ"},
		{"specs", []string{"merge", b1, specs, "-o", filepath.Join(tmp, "x7")}, exitBadArgs, "specs/fake/spec.yaml is not the same"},
		{"same shard twice", []string{"merge", b2, commit, "-o", filepath.Join(tmp, "x4"), "--allow-mixed"}, exitBadArgs, "both shard 2/2"},
		{"existing output", []string{"merge", b1, b2, "-o", a}, exitBadArgs, "not empty"},
		{"not a run", []string{"merge", b1, tmp + "/nope", "-o", filepath.Join(tmp, "x5")}, exitBadArgs, "not a run directory"},
		{"no output", []string{"merge", b1, b2}, exitBadArgs, "-o RUN"},
		{"allow mixed", []string{"merge", b1, commit, "-o", filepath.Join(tmp, "x6"), "--allow-mixed", "--no-report"}, exitOK, "git commits differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := mustRun(t, tc.want, tc.args...)
			if !strings.Contains(e, tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, e)
			}
			if tc.want != exitOK {
				if _, err := os.Stat(tc.args[len(tc.args)-1]); err == nil && tc.name != "existing output" && tc.name != "no output" {
					t.Errorf("a refused merge left %s", tc.args[len(tc.args)-1])
				}
			}
		})
	}
	// A shard run resumed with another split is refused.
	_, e := mustRun(t, exitBadArgs, profileArgs(sel, b1, "--shard", "1/3", "--resume")...)
	if !strings.Contains(e, "shard") {
		t.Errorf("resume with another shard: %s", e)
	}
}

func TestShardUsage(t *testing.T) {
	sel := fakeSweep(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{profileArgs(sel, filepath.Join(t.TempDir(), "r"), "--shard", "3/2"), "want I/N"},
		{profileArgs(sel, filepath.Join(t.TempDir(), "r"), "--shard", "x"), "want I/N"},
		{profileArgs(sel, filepath.Join(t.TempDir(), "r"), "--shard", "1/50"), "only 9 cells"},
		{append([]string{"plan", "--shard-count", "50"}, sel...), "only 9 cells"},
		{append([]string{"plan", "--format", "yaml"}, sel...), "--format"},
	} {
		_, e := mustRun(t, exitBadArgs, tc.args...)
		if !strings.Contains(e, tc.msg) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.args, tc.msg, e)
		}
	}
	o, _ := mustRun(t, exitOK, append([]string{"plan", "--shard-count", "2"}, sel...)...)
	for _, want := range []string{"fake/good/n=1", "SHARD  CELLS  PREDICTED (s)", "\n1/2  ", "\n2/2  ", "plan hash: "} {
		if !strings.Contains(o, want) {
			t.Errorf("plan table lacks %q:\n%s", want, o)
		}
	}
}

// gzipExports replaces every .sqlite under dir by its .sqlite.gz and
// returns how many.
// removeReps deletes the .ncu-rep and .nsys-rep files under dir, as the
// device scripts leave them behind.
func removeReps(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(p, ".ncu-rep") || strings.HasSuffix(p, ".nsys-rep") {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func gzipExports(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sqlite") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		if _, err := w.Write(data); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if err := os.WriteFile(p+".gz", buf.Bytes(), 0o644); err != nil {
			return err
		}
		n++
		return os.Remove(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
