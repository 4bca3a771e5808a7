package reports

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
)

// writeRunMem loads a run as rooftool report does (pipeline.Load, tables
// through mem) and renders it with Write into outDir ("" = the run's own
// folder).
func writeRunMem(ctx context.Context, run *rundir.Run, outDir string, formats []string, mem memory.Allocator) error {
	res, err := pipeline.Load(ctx, run, mem)
	if err != nil {
		return err
	}
	if outDir == "" {
		outDir = run.Dir
	}
	return Write(ctx, res, outDir, formats)
}
