package reports

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/testdata"
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

// loadCommitted loads a committed run for its report through a checked
// allocator, which must hold nothing once the run is loaded (pipeline.Load
// releases the tables).
func loadCommitted(t *testing.T, name string) *Input {
	t.Helper()
	run := openCommitted(t, name)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	res, err := pipeline.Load(t.Context(), run, mem)
	if err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	return &Input{Result: *res}
}
