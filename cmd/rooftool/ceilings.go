package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu/measure"
	"github.com/rooftool/rooftool/launch"
)

// CeilingsOptions are the flags of `rooftool ceilings`.
type CeilingsOptions struct {
	IO     *IO
	Output string // file, or a directory to write ceilings.json into
	Python string // python interpreter with torch (and triton)
	Script string // ceilings script; "" = the copy embedded in rooftool
	Reps   int
	Quick  bool
}

func newCeilingsCmd(io *IO) *cobra.Command {
	opts := &CeilingsOptions{IO: io}
	c := &cobra.Command{
		Use:   "ceilings -o RUNDIR/ceilings.json",
		Short: "Measure this GPU's empirical ceilings (DRAM, L2, fp32, tensor GEMMs)",
		Long: `Ceilings runs kernels/ceilings.py (embedded in rooftool) on CUDA device 0 to
measure empirical roofs: DRAM bandwidth with a working set well past L2, L2
bandwidth with one inside it, fp32 FMA throughput, and bf16, fp16, tf32 and
fp8 GEMM throughput. It writes them as JSON; the roofline draws them dashed
beside the theoretical roofs.

Without a CUDA device (or without torch), or when no ceiling could be
measured, it writes nothing (no folder of -o either) and exits 1 with the
reason. It never changes clocks or power limits.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Output == "" {
				return usageErrorf("ceilings: -o FILE is required (e.g. -o RUNDIR/ceilings.json)")
			}
			if opts.Reps < 1 {
				return usageErrorf("ceilings: --reps %d: want at least 1", opts.Reps)
			}
			return runCeilings(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "JSON file to write (a directory: DIR/ceilings.json)")
	c.Flags().StringVar(&opts.Python, "python", "", "python interpreter with torch and triton (default: "+launch.VenvPython+" where scripts/setup.sh made it, else the python3 beside an installed rooftool, else python3)")
	c.Flags().StringVar(&opts.Script, "script", "", "ceilings script to run (default: the copy of kernels/ceilings.py built into rooftool)")
	c.Flags().IntVar(&opts.Reps, "reps", 20, "timed repetitions per ceiling (the best is the ceiling)")
	c.Flags().BoolVar(&opts.Quick, "quick", false, "smaller sizes: a smoke test, not a ceiling")
	return c
}

func runCeilings(ctx context.Context, opts *CeilingsOptions) error {
	if opts.Python == "" {
		opts.Python = launch.DefaultPython()
	}
	m, out, err := measure.Run(ctx, measure.Options{Output: opts.Output, Python: opts.Python, Script: opts.Script,
		Reps: opts.Reps, Quick: opts.Quick, Log: opts.IO.Err})
	var pe *measure.PythonError
	if errors.As(err, &pe) {
		return usageErrorf("ceilings: %v", pe)
	}
	if err != nil {
		return fmt.Errorf("ceilings: %w", err)
	}
	if err := measure.WriteTable(opts.IO.Out, m); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(m.Errors)) {
		fmt.Fprintf(opts.IO.Err, "ceilings: %s not measured: %s\n", k, m.Errors[k])
	}
	fmt.Fprintf(opts.IO.Err, "ceilings: %d measured on %s -> %s\n", len(m.Items), m.Device, out)
	return nil
}
