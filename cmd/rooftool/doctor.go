package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch"
)

// DoctorOptions are the flags of `rooftool doctor`.
type DoctorOptions struct {
	IO       *IO
	NCU      string
	Nsys     string
	NsysLibs string
	Python   string
	Kernels  string
	Probe    bool
	Format   string // table | csv | json
	JSON     bool   // deprecated alias of --format json
	Strict   bool
}

func newDoctorCmd(io *IO) *cobra.Command {
	opts := &DoctorOptions{IO: io}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check this machine for profiling: GPU, driver, CUDA, ncu, nsys, counters, Python",
		Long:  helpText("doctor"),
		Example: `  rooftool doctor
  rooftool doctor --probe=false --format json | jq '.findings[] | select(.level == "problem")'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.JSON {
				if c.Flags().Changed("format") && opts.Format != "json" {
					return usageErrorf("doctor: --json and --format %s exclude each other", opts.Format)
				}
				opts.Format = "json"
			}
			return runDoctor(c.Context(), opts)
		},
	}
	f := c.Flags()
	// Flag warnings (the deprecated --json) go to stderr, not into the
	// output a script reads.
	f.SetOutput(io.Err)
	f.StringVar(&opts.NCU, "ncu", "", "ncu binary (default: PATH or the usual NVIDIA folders)")
	f.StringVar(&opts.Nsys, "nsys", "", "nsys binary (default: PATH, Nsight Systems, or the copy inside Nsight Compute)")
	f.StringVar(&opts.NsysLibs, "nsys-libs", "", "folder added to nsys' LD_LIBRARY_PATH (default $ROOFTOOL_NSYS_LIBS or .nsysdeps/root/usr/lib/x86_64-linux-gnu)")
	f.StringVar(&opts.Python, "python", "", "Python interpreter for kernels/run.py (default: "+launch.VenvPython+" where scripts/setup.sh made it, else python3)")
	f.StringVar(&opts.Kernels, "kernels", "", kernelsFlagHelp)
	f.BoolVar(&opts.Probe, "probe", true, "profile a tiny torch kernel with ncu to test counter permissions (GPU machines only)")
	f.StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	f.BoolVar(&opts.JSON, "json", false, "print the findings as JSON")
	f.MarkDeprecated("json", "use --format json")
	f.BoolVar(&opts.Strict, "strict", false, "exit 1 on a warning too, not only on a problem")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	mustRegisterCompletion(c, "kernels", completeDirs)
	return c
}

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	if err := checkDataFormat("doctor", opts.Format); err != nil {
		return err
	}
	fs := launch.Doctor(ctx, launch.DoctorConfig{
		Python: opts.Python, KernelsDir: opts.Kernels, NCU: opts.NCU, Nsys: opts.Nsys,
		NsysLibs: opts.NsysLibs, Probe: opts.Probe,
	})
	rep := launch.NewDoctorReport(fs)
	csv, err := tableout.Records(rep.Findings)
	if err != nil {
		return err
	}
	err = writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: rep,
		Text: func(w io.Writer) error { return rep.WriteText(w) },
	})
	if err != nil {
		return err
	}
	switch {
	case rep.Problems > 0:
		return fmt.Errorf("doctor: %d problem(s) found: this machine cannot profile until they are fixed", rep.Problems)
	case opts.Strict && rep.Warnings() > 0:
		return fmt.Errorf("doctor: %d warning(s) found (--strict)", rep.Warnings())
	}
	return nil
}
