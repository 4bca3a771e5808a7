package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modulePath is the import path of the module; layers speak of its packages
// relative to it ("ingest/rundir").
const modulePath = "github.com/rooftool/rooftool"

// leafPackages import no package of the module; every layer may import them.
var leafPackages = []string{"cellkey", "internal/checkout", "internal/figure", "internal/tableout", "internal/memlimit", "internal/buildinfo", "internal/testgz", "metric"}

// launchFloors are the packages under launch and, for each, the packages
// under launch it may import: plan is the floor of them all, shard joins
// runs through runtables, and none imports launch itself, the runner of
// the passes, which imports them. A new package under launch names its
// floor here.
var launchFloors = map[string][]string{
	"launch/plan": {}, "launch/ncu": {}, "launch/rangerule": {}, "launch/runtables": {}, "launch/runsummary": {"launch/cmdprog", "launch/runtables"},
	"launch/compilecache": {"launch/plan"}, "launch/cmdprog": {"launch/plan"},
	"launch/shard": {"launch/plan", "launch/runtables"},
}

// under reports whether package p is root or a package below it.
func underPkg(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }

// ingestFormats are the packages of ingest that read one export format
// each, beside the core (ingest) and below the dispatcher (ingest/detect).
var ingestFormats = []string{"ingest/ncu", "ingest/nsys", "ingest/kineto", "ingest/timing"}

// ingestAbove reports whether d is an ingest package that the core and the
// format packages stay below: a format package or the dispatcher.
func ingestAbove(d string) bool { return slices.Contains(ingestFormats, d) || d == "ingest/detect" }

// layerViolations checks the direction of the module's imports, given each
// package's imports of the module's packages (paths relative to modulePath,
// non-test imports): the pipeline flows gpu -> ingest -> analysis ->
// pipeline -> verdict -> roofline, reports -> cmd, with launch beside
// analysis (its sub-packages below it, launchFloors), suggest, project and
// stats beside analysis, after it (suggest and project read analysis's
// facts, stats ingest's kernels; analysis reads none of them), and diff
// beside reports. Verdict decides and draws nothing; reports renders its
// verdicts and the plots. It returns one line per import against that
// direction.
func layerViolations(imports map[string][]string) []string {
	leaf := func(d string) bool { return slices.Contains(leafPackages, d) }
	rules := []struct {
		pkg   func(string) bool
		allow func(dep string) bool
		what  string
	}{
		{leaf, func(string) bool { return false }, "a leaf package imports no package of the module"},
		{func(p string) bool { return p == "gpu" }, leaf, "gpu imports only leaf packages"},
		{func(p string) bool { return p == "internal/progress" }, leaf, "internal/progress imports only leaf packages"},
		{func(p string) bool { return p == "gpu/measure" }, func(d string) bool { return leaf(d) || d == "gpu" || d == "kernels" },
			"gpu/measure imports only gpu, kernels (its script) and leaf packages"},
		{func(p string) bool { return underPkg(p, "ingest") }, func(d string) bool { return leaf(d) || d == "gpu" || underPkg(d, "ingest") },
			"ingest imports only gpu and leaf packages"},
		{func(p string) bool { return slices.Contains(ingestFormats, p) }, func(d string) bool { return !ingestAbove(d) },
			"a format package of ingest imports no other format's package nor ingest/detect"},
		{func(p string) bool { return p == "ingest" || underPkg(p, "ingest/internal") || p == "ingest/rundir" }, func(d string) bool { return !ingestAbove(d) },
			"the ingest core (and ingest/internal, ingest/rundir) imports no format package nor ingest/detect"},
		{func(p string) bool { return p == "analysis" }, func(d string) bool {
			return !underPkg(d, "pipeline") && !underPkg(d, "verdict") && !underPkg(d, "reports") && !underPkg(d, "diff") && !underPkg(d, "roofline") && !underPkg(d, "cmd") && !underPkg(d, "launch")
		}, "analysis imports nothing of pipeline, verdict, reports, diff, roofline, cmd or launch"},
		{func(p string) bool { return p == "analysis" }, func(d string) bool {
			return !underPkg(d, "suggest") && !underPkg(d, "project") && !underPkg(d, "stats")
		}, "analysis imports none of suggest, project and stats (they sit after it)"},
		{func(p string) bool { return underPkg(p, "suggest") || underPkg(p, "project") || underPkg(p, "stats") }, func(d string) bool {
			return leaf(d) || d == "gpu" || underPkg(d, "ingest") || d == "spec" || d == "analysis"
		}, "suggest, project and stats import only analysis, ingest, gpu, spec and leaf packages: nothing of pipeline, reports, roofline, cmd or launch, nor each other"},
		{func(p string) bool { return underPkg(p, "launch") }, func(d string) bool {
			return !underPkg(d, "analysis") && !underPkg(d, "pipeline") && !underPkg(d, "verdict") && !underPkg(d, "reports") && !underPkg(d, "diff") && !underPkg(d, "roofline") && !underPkg(d, "cmd")
		}, "launch and its sub-packages import nothing of analysis, pipeline, verdict, reports, diff, roofline or cmd"},
		{func(p string) bool { return underPkg(p, "pipeline") }, func(d string) bool {
			return !underPkg(d, "verdict") && !underPkg(d, "reports") && !underPkg(d, "diff") && !underPkg(d, "roofline") && !underPkg(d, "cmd")
		}, "pipeline imports nothing of verdict, reports, diff, roofline or cmd"},
		{func(p string) bool { return underPkg(p, "verdict") }, func(d string) bool { return !underPkg(d, "reports") && !underPkg(d, "diff") && !underPkg(d, "cmd") },
			"verdict imports nothing of reports, diff or cmd: the renderers read its model, not it theirs"},
		{func(p string) bool { return underPkg(p, "reports") }, func(d string) bool { return !underPkg(d, "diff") },
			"reports imports nothing of diff: a report renders one run"},
		{func(p string) bool { return underPkg(p, "roofline") || underPkg(p, "reports") || underPkg(p, "diff") }, func(d string) bool { return !underPkg(d, "cmd") },
			"roofline, reports and diff import nothing of cmd"},
		{func(p string) bool { return p != "cmd/rooftool" && p != "reports" }, func(d string) bool { return !underPkg(d, "roofline") },
			"only cmd/rooftool and reports draw (import roofline): verdict decides, diff compares"},
		{func(string) bool { return true }, func(d string) bool { return d != "verdict/verdicttest" },
			"only tests import verdict/verdicttest"},
		{func(p string) bool { return p != "cmd/rooftool" && p != "pipeline" }, func(d string) bool { return d != "testdata" },
			"only pipeline (Open: committed runs by name) and cmd/rooftool import testdata outside tests"},
		{func(p string) bool { return underPkg(p, "verdict") || underPkg(p, "reports") || underPkg(p, "diff") }, func(d string) bool { return !underPkg(d, "testdata") },
			"verdict, reports and diff judge, render or compare what they are given and open no run"},
	}
	var out []string
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		floors, named := launchFloors[p]
		if strings.HasPrefix(p, "launch/") && !named {
			out = append(out, p+": a package under launch names the packages under launch it may import in launchFloors")
		}
		for _, d := range imports[p] {
			for _, r := range rules {
				if r.pkg(p) && !r.allow(d) {
					out = append(out, p+" imports "+d+": "+r.what)
				}
			}
			if strings.HasPrefix(p, "launch/") && underPkg(d, "launch") && !slices.Contains(floors, d) {
				out = append(out, p+" imports "+d+": a package under launch imports only its floors (launchFloors), never launch, the runner")
			}
		}
	}
	return out
}

// moduleImports lists, with go list, each package of the module and the
// packages of the module it imports (test files left out).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	cmd := exec.Command(goBin, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, msg)
	}
	rel := func(p string) (string, bool) {
		if p == modulePath {
			return "", true
		}
		r, ok := strings.CutPrefix(p, modulePath+"/")
		return r, ok
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p, ok := rel(f[0])
		if !ok {
			t.Fatalf("go list names %q, outside the module", f[0])
		}
		imports[p] = []string{}
		for _, d := range f[1:] {
			if r, ok := rel(d); ok {
				imports[p] = append(imports[p], r)
			}
		}
	}
	return imports
}

// TestImportLayers: the module's imports flow one way (layerViolations).
func TestImportLayers(t *testing.T) {
	imports := moduleImports(t)
	for _, p := range []string{"cellkey", "gpu", "gpu/measure", "ingest", "ingest/rundir", "ingest/ncu", "ingest/nsys", "ingest/kineto", "ingest/timing", "ingest/detect", "analysis", "suggest", "project", "stats", "launch", "pipeline", "verdict", "roofline", "reports", "diff", "cmd/rooftool"} {
		if _, ok := imports[p]; !ok {
			t.Fatalf("go list does not list %s: %v", p, imports)
		}
	}
	for p := range launchFloors {
		if _, ok := imports[p]; !ok {
			t.Errorf("launchFloors names %s, which go list does not list", p)
		}
	}
	if !slices.Contains(imports["cmd/rooftool"], "testdata") || !slices.Contains(imports["reports"], "roofline") || !slices.Contains(imports["reports"], "verdict") || !slices.Contains(imports["suggest"], "analysis") {
		t.Fatalf("the imports read lack cmd/rooftool -> testdata, reports -> roofline, reports -> verdict or suggest -> analysis: %v", imports)
	}
	for _, v := range layerViolations(imports) {
		t.Error(v)
	}
}

// TestLayerViolations: each rule names an import against the direction.
func TestLayerViolations(t *testing.T) {
	ok := map[string][]string{
		"cellkey": {}, "internal/tableout": {}, "gpu": {"cellkey"}, "kernels": {}, "gpu/measure": {"gpu", "kernels", "internal/tableout"}, "internal/progress": {"internal/tableout"},
		"ingest": {"cellkey", "gpu", "ingest/internal/knob"}, "ingest/rundir": {"cellkey", "ingest"},
		"ingest/ncu": {"ingest"}, "ingest/nsys": {"ingest", "ingest/internal/callindex"}, "ingest/kineto": {"ingest", "ingest/internal/callindex"},
		"ingest/timing": {"cellkey", "ingest"}, "ingest/detect": {"ingest", "ingest/ncu", "ingest/nsys", "ingest/kineto", "ingest/timing"},
		"analysis": {"cellkey", "gpu", "ingest", "ingest/rundir", "spec"}, "spec": {"kernels"},
		"suggest":  {"analysis", "cellkey", "ingest", "internal/tableout", "spec"},
		"project":  {"analysis", "cellkey", "gpu", "internal/tableout"},
		"stats":    {"ingest", "internal/tableout"},
		"launch":   {"cellkey", "gpu", "ingest", "ingest/rundir", "spec", "kernels"},
		"pipeline": {"analysis", "ingest", "testdata"}, "roofline": {"analysis", "gpu"},
		"verdict":             {"analysis", "pipeline", "spec", "internal/figure"},
		"verdict/verdicttest": {"analysis", "pipeline", "spec"},
		"reports":             {"verdict", "pipeline", "roofline", "internal/figure", "internal/tableout"},
		"diff":                {"analysis", "pipeline", "reports", "verdict", "internal/figure"},
		"cmd/rooftool":        {"reports", "diff", "verdict", "roofline", "pipeline", "testdata", "launch", "suggest", "project", "stats"},
		"launch/plan":         {"cellkey", "ingest/rundir", "spec"}, "launch/shard": {"launch/plan", "launch/runtables", "ingest/rundir"},
		"launch/runtables": {"ingest", "ingest/rundir"}, "launch/cmdprog": {"launch/plan", "kernels", "spec"},
	}
	if v := layerViolations(ok); len(v) != 0 {
		t.Errorf("the module's layering reads as violations: %v", v)
	}
	for _, bad := range [][2]string{
		{"cellkey", "gpu"}, {"internal/tableout", "cellkey"}, {"gpu", "ingest"}, {"gpu/measure", "launch"}, {"gpu/measure", "ingest/rundir"}, {"internal/progress", "ingest"}, {"ingest", "analysis"}, {"ingest/rundir", "spec"},
		{"ingest/ncu", "ingest/nsys"}, {"ingest/kineto", "ingest/nsys"}, {"ingest/nsys", "ingest/detect"}, {"ingest", "ingest/ncu"},
		{"ingest", "ingest/detect"}, {"ingest/internal/callindex", "ingest/kineto"},
		{"analysis", "pipeline"}, {"analysis", "roofline"}, {"analysis", "launch"}, {"launch", "analysis"},
		{"pipeline", "reports"}, {"pipeline", "roofline"}, {"roofline", "cmd/rooftool"}, {"reports", "cmd/rooftool"},
		{"launch", "roofline"}, {"analysis", "testdata"}, {"reports", "testdata"},
		{"analysis", "suggest"}, {"analysis", "project"}, {"suggest", "project"}, {"project", "suggest"},
		{"suggest", "pipeline"}, {"project", "reports"}, {"suggest", "roofline"}, {"project", "launch"}, {"suggest", "cmd/rooftool"},
		{"analysis", "stats"}, {"stats", "suggest"}, {"project", "stats"}, {"stats", "pipeline"}, {"stats", "reports"}, {"stats", "launch"}, {"stats", "cmd/rooftool"},
		{"launch/shard", "analysis"}, {"launch/shard", "launch"}, {"launch/plan", "launch/shard"}, {"launch/ncu", "launch/plan"},
		{"launch/cmdprog", "launch/shard"}, {"launch/new", "cellkey"},
		{"analysis", "verdict"}, {"pipeline", "verdict"}, {"pipeline", "diff"}, {"verdict", "reports"}, {"verdict", "roofline"},
		{"verdict", "diff"}, {"verdict", "testdata"}, {"verdict/verdicttest", "reports"}, {"reports", "diff"}, {"reports", "verdict/verdicttest"},
		{"diff", "cmd/rooftool"}, {"diff", "roofline"}, {"diff", "testdata"},
	} {
		m := map[string][]string{bad[0]: {bad[1]}}
		if v := layerViolations(m); len(v) == 0 {
			t.Errorf("%s importing %s is not a violation", bad[0], bad[1])
		}
	}
}

// TestReportsLoadNothing: verdict judges and reports renders a loaded run
// (pipeline.Result), diff compares two runs' tables (pipeline.Tables); none
// calls a loader: commands load runs through loadRun (pipeline.Open,
// pipeline.LoadWith) alone.
func TestReportsLoadNothing(t *testing.T) {
	loaders := []string{"pipeline.Load(", "pipeline.LoadWith(", "pipeline.OpenTables(", "pipeline.Open(", "rundir.Open(", "rundir.OpenFS("}
	for _, pkg := range []string{"verdict", "reports", "diff"} {
		files, err := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s sources: %v", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range loaders {
				if strings.Contains(string(data), l) {
					t.Errorf("%s calls %s: %s works on what it is given", f, l, pkg)
				}
			}
		}
	}
}
