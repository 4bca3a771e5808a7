package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest"
)

// IngestOptions are the flags of `rooftool ingest`.
type IngestOptions struct {
	IO     *IO
	Files  []string
	OutDir string
	Format string
	NCU    string
	Nsys   string
}

func newIngestCmd(io *IO) *cobra.Command {
	opts := &IngestOptions{IO: io}
	c := &cobra.Command{
		Use:   "ingest FILE... -o DIR",
		Short: "Read ncu CSV, nsys SQLite and Kineto JSON exports into Arrow tables",
		Long: `Ingest detects the format of each export (Nsight Compute CSV or .ncu-rep,
Nsight Systems SQLite or .nsys-rep, Kineto / PyTorch-profiler JSON(.gz),
rooftool timing JSON) and writes the tables kernels, metrics, ranges, gpus,
meta and timings to DIR as Parquet (or Arrow IPC with --format arrow).
Either every table is written or none is.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if opts.OutDir == "" {
				return usageErrorf("ingest: -o DIR is required")
			}
			return runIngest(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.OutDir, "output", "o", "", "directory to write the tables to")
	c.Flags().StringVar(&opts.Format, "format", ingest.FormatParquet, "table format: parquet or arrow")
	c.Flags().StringVar(&opts.NCU, "ncu", "", "ncu binary used to read .ncu-rep files (default: found on PATH)")
	c.Flags().StringVar(&opts.Nsys, "nsys", "", "nsys binary used to export .nsys-rep files (default: found on PATH or in Nsight installs)")
	return c
}

func runIngest(ctx context.Context, opts *IngestOptions) error {
	if opts.Format != ingest.FormatParquet && opts.Format != ingest.FormatArrow {
		return usageErrorf("ingest: --format %q: want parquet or arrow", opts.Format)
	}
	var inputs []ingest.Input
	for _, f := range opts.Files {
		inputs = append(inputs, ingest.Input{Path: f, Options: ingest.Options{NCU: opts.NCU, Nsys: opts.Nsys}})
	}
	t, err := ingest.Files(inputs, nil)
	if err != nil {
		return err
	}
	defer t.Release()
	if err := t.Write(opts.OutDir, opts.Format); err != nil {
		return fmt.Errorf("ingest: write %s: %w", opts.OutDir, err)
	}
	fmt.Fprintf(opts.IO.Err, "ingested %d file(s): %d kernels, %d metrics, %d ranges, %d timings -> %s\n",
		len(opts.Files), t.NumRows(ingest.TableKernels), t.NumRows(ingest.TableMetrics),
		t.NumRows(ingest.TableRanges), t.NumRows(ingest.TableTimings), opts.OutDir)
	return nil
}
