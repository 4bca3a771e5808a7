package main

import (
	"context"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
)

// loadRun is the one way a command loads a run: it opens what the user
// named, a run directory or a committed run (pipeline.Open), and analyses
// it (pipeline.LoadWith, po its options).
func loadRun(ctx context.Context, arg string, po pipeline.Options) (*rundir.Run, *pipeline.Result, error) {
	run, err := pipeline.Open(arg)
	if err != nil {
		return nil, nil, err
	}
	res, err := pipeline.LoadWith(ctx, run, po)
	if err != nil {
		return run, nil, err
	}
	return run, res, nil
}
