package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
)

// IngestOptions are the flags of `rooftool ingest`.
type IngestOptions struct {
	IO          *IO
	Files       []string
	OutDir      string
	TableFormat string // parquet | arrow
	NCU         string
	Nsys        string
	KeepGoing   bool // ingest the readable files, list the others, exit 1 if any was skipped
	Force       bool // write into a run directory's folder all the same
}

func newIngestCmd(io *IO) *cobra.Command {
	opts := &IngestOptions{IO: io}
	c := &cobra.Command{
		Use:   "ingest FILE... -o DIR",
		Short: "Read ncu CSV, nsys SQLite and Kineto JSON exports into Arrow tables",
		Long: `Ingest detects the format of each export (Nsight Compute CSV or .ncu-rep,
Nsight Systems SQLite or .nsys-rep, Kineto / PyTorch-profiler JSON(.gz),
rooftool timing JSON) and writes the tables kernels, metrics, ranges, gpus,
meta and timings to DIR as Parquet (or Arrow IPC with --table-format arrow).
Either every table is written or none is, and one unreadable file stops
the ingest. Parquet rows are written as they are read, so memory stays
bounded whatever the size of the exports (--table-format arrow and --keep-going
build the tables in memory first; a Kineto trace is read three times,
no kernel held); a string past 1 MiB, an ncu CSV line or a Kineto event
past 64 MiB and ranges nested past 1000 levels are refused (exit 2), and
past the memory limit (GOMEMLIMIT, else 3/4 of the machine's) ingest
stops with exit 1; past about a million CUDA runtime
calls, an nsys export's calls are indexed in a file in the temporary
directory ($TMPDIR), 36 bytes a call, removed when the ingest ends. With --keep-going the readable files are ingested, each
unreadable one is listed on stderr with the reason, and the exit status is
1 when any was skipped (nothing is written when none was readable). Two
files with the same content (SHA-256) are refused: one export given twice
would count its kernels twice. DIR inside a run directory (one holding
manifest.json, such as RUN/tables) is refused unless --force: the run's
report reads those tables. --format is the old name of --table-format; it
still works and says so on stderr. Where stderr is a terminal, one line
there shows the export being read and its kernels so far, wiped when the
ingest ends; in a pipe nothing is added.`,
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
	c.Flags().StringVar(&opts.TableFormat, "table-format", ingest.FormatParquet, "table format: parquet or arrow")
	c.Flags().StringVar(&opts.NCU, "ncu", "", "ncu binary used to read .ncu-rep files (default: found on PATH)")
	c.Flags().StringVar(&opts.Nsys, "nsys", "", "nsys binary used to export .nsys-rep files (default: found on PATH or in Nsight installs)")
	c.Flags().BoolVar(&opts.KeepGoing, "keep-going", false, "ingest the readable files, list the unreadable ones and exit 1 if any was skipped")
	c.Flags().BoolVar(&opts.Force, "force", false, "write DIR even inside a run directory (one with "+rundir.ManifestFile+"), replacing the run's tables")
	mustRegisterCompletion(c, "table-format", completeOneOf(ingest.FormatParquet, ingest.FormatArrow))
	renamedFlag(c, io.Err, "format", "table-format")
	return c
}

func runIngest(ctx context.Context, opts *IngestOptions) error {
	if opts.TableFormat != ingest.FormatParquet && opts.TableFormat != ingest.FormatArrow {
		return usageErrorf("ingest: --table-format %q: want parquet or arrow", opts.TableFormat)
	}
	if err := pipeline.DistinctInputsOf("ingest", opts.Files); err != nil {
		return err
	}
	var inputs []ingest.Input
	for _, f := range opts.Files {
		inputs = append(inputs, ingest.Input{Path: f, Options: ingest.Options{NCU: opts.NCU, Nsys: opts.Nsys}})
	}
	progress := newWorkProgress(opts.IO)
	progress.Watch(inputs)
	w, skipped, err := pipeline.Ingest(inputs, opts.OutDir, pipeline.IngestOptions{Format: opts.TableFormat, KeepGoing: opts.KeepGoing, Force: opts.Force})
	progress.Stop()
	for _, s := range skipped {
		fmt.Fprintf(opts.IO.Err, "skipped %s: %s\n", s.Path, s.Reason)
	}
	if err != nil {
		return err
	}
	for _, m := range w.Warnings {
		fmt.Fprintf(opts.IO.Err, "warning: %s: %s\n", m.File, m.Value)
	}
	fmt.Fprintf(opts.IO.Err, "ingested %d file(s): %d kernels, %d metrics, %d ranges, %d timings -> %s\n",
		len(inputs)-len(skipped), w.Rows[ingest.TableKernels], w.Rows[ingest.TableMetrics],
		w.Rows[ingest.TableRanges], w.Rows[ingest.TableTimings], opts.OutDir)
	if len(skipped) > 0 {
		return fmt.Errorf("ingest: skipped %d of %d file(s)", len(skipped), len(inputs))
	}
	return nil
}
