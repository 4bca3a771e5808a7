package reports

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/testdata"
)

// TestGoldenCommittedRun pins the report of the real run committed under
// testdata/runs (the one `rooftool report` renders with no argument).
func TestGoldenCommittedRun(t *testing.T) {
	runs := testdata.Runs()
	if len(runs) == 0 {
		t.Skip("no run committed under testdata/runs yet")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, name := range runs {
		t.Run(name, func(t *testing.T) {
			_, fsys, err := testdata.Run(name)
			if err != nil {
				t.Fatal(err)
			}
			run, err := rundir.OpenFS(name, fsys)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			if err := writeRunMem(context.Background(), run, out, []string{FormatMarkdown, FormatJSON}, mem); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"report.md", "report.json"} {
				got, err := os.ReadFile(filepath.Join(out, f))
				if err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("committed", name, f), got)
			}
		})
	}
}
