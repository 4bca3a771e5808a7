package verdict

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest/rundir"
	goldenfile "github.com/rooftool/rooftool/internal/golden"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/testdata"
	"github.com/rooftool/rooftool/verdict/verdicttest"
)

// openCommitted opens a committed run by name ("": the default run). The
// test is skipped where no run is committed, and fails where name is not one.
func openCommitted(t *testing.T, name string) *rundir.Run {
	t.Helper()
	if len(testdata.Runs()) == 0 {
		t.Skip("no run committed under testdata/runs yet")
	}
	n, fsys, err := testdata.Run(name)
	if err != nil {
		t.Fatal(err)
	}
	run, err := rundir.OpenFS(n, fsys)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// loadCommitted loads a committed run to be judged through a checked
// allocator, which must hold nothing once the run is loaded (pipeline.Load
// releases the tables).
func loadCommitted(t *testing.T, name string) *pipeline.Result {
	t.Helper()
	run := openCommitted(t, name)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	res, err := pipeline.Load(t.Context(), run, mem)
	if err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	return res
}

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// syntheticJudged is the hand-made run of verdicttest.Synthetic.
func syntheticJudged(t *testing.T) pipeline.Result {
	t.Helper()
	return verdicttest.Synthetic(t)
}
