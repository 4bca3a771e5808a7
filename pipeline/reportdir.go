package pipeline

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/testdata"
)

// CommittedRunNote says which committed run report renders from the
// binary or the clone: inside a rooftool clone, the run under its
// testdata/runs; outside one, that only the embedded run is there, and
// how to render another.
func CommittedRunNote(name string) string {
	if runs, _ := testdata.RepoDir(); runs != "" {
		dir := filepath.Join(runs, name)
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, dir); err == nil {
				dir = rel
			}
		}
		return fmt.Sprintf("rendering the committed run %s (embedded in rooftool, as %s of this clone)", name, dir)
	}
	return fmt.Sprintf("rendering the committed run %s, embedded in rooftool: outside a rooftool clone it is the only committed run; to render another run, name its run directory (rooftool report RUNDIR, RUNDIR what rooftool profile -o wrote)", name)
}

// ReportDir is where a run's report goes: outDir, else the run's
// folder, else out/report for a committed run read from the binary.
func ReportDir(run *rundir.Run, outDir string) string {
	switch {
	case outDir != "":
		return outDir
	case run.Dir != "":
		return run.Dir
	}
	return filepath.Join("out", "report")
}
