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

// diffRuns opens two runs' tables as rooftool diff does
// (pipeline.OpenTables) and compares them with DiffRuns.
func diffRuns(a, b *rundir.Run, mem memory.Allocator) (*DiffResult, error) {
	ta, err := pipeline.OpenTables(context.Background(), a, mem)
	if err != nil {
		return nil, err
	}
	defer ta.Release()
	tb, err := pipeline.OpenTables(context.Background(), b, mem)
	if err != nil {
		return nil, err
	}
	defer tb.Release()
	return DiffRuns(ta, tb)
}
