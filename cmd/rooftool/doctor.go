package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/kernels/launch"
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
	JSON     bool
	Strict   bool
}

func newDoctorCmd(io *IO) *cobra.Command {
	opts := &DoctorOptions{IO: io}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check this machine for profiling: GPU, driver, CUDA, ncu, nsys, counters, Python",
		Long: `Doctor reports the GPU and driver, the CUDA toolkit, ncu and nsys with their
versions, whether nsys' importer loads its libraries (libdw.so.1 is often
missing), whether performance counters are permitted, and the Python, torch
and triton versions the runner will use. Each problem comes with what to do.
It runs on machines without a GPU too and says so; it exits 0 unless --strict
is given and a problem was found.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDoctor(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.NCU, "ncu", "", "ncu binary (default: PATH or the usual NVIDIA folders)")
	f.StringVar(&opts.Nsys, "nsys", "", "nsys binary (default: PATH, Nsight Systems, or the copy inside Nsight Compute)")
	f.StringVar(&opts.NsysLibs, "nsys-libs", "", "folder added to nsys' LD_LIBRARY_PATH (default $ROOFTOOL_NSYS_LIBS or .nsysdeps/root/usr/lib/x86_64-linux-gnu)")
	f.StringVar(&opts.Python, "python", "python3", "Python interpreter for kernels/run.py")
	f.StringVar(&opts.Kernels, "kernels", "kernels", "folder with run.py")
	f.BoolVar(&opts.Probe, "probe", true, "profile a tiny torch kernel with ncu to test counter permissions (GPU machines only)")
	f.BoolVar(&opts.JSON, "json", false, "print the findings as JSON")
	f.BoolVar(&opts.Strict, "strict", false, "exit 1 when a problem was found")
	return c
}

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	fs := launch.Doctor(ctx, launch.DoctorConfig{
		Python: opts.Python, KernelsDir: opts.Kernels, NCU: opts.NCU, Nsys: opts.Nsys,
		NsysLibs: opts.NsysLibs, Probe: opts.Probe,
	})
	problems := 0
	for _, f := range fs {
		if f.Level == launch.LevelProblem {
			problems++
		}
	}
	w := opts.IO.Out
	if opts.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(fs); err != nil {
			return err
		}
	} else {
		for _, f := range fs {
			fmt.Fprintf(w, "%-8s %-15s %s\n", f.Level, f.Check, f.Detail)
			if f.Fix != "" {
				fmt.Fprintf(w, "%-8s %-15s fix: %s\n", "", "", f.Fix)
			}
		}
		if problems == 0 {
			fmt.Fprintln(w, "no problems found")
		} else {
			fmt.Fprintf(w, "%d problem(s) found\n", problems)
		}
	}
	if opts.Strict && problems > 0 {
		return fmt.Errorf("doctor: %d problem(s) found", problems)
	}
	return nil
}
