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
		Long: `Doctor reports the GPU and driver, the CUDA toolkit, ncu and nsys with their
versions, whether nsys' importer loads its libraries (libdw.so.1 is often
missing), whether performance counters are permitted, the Python the
runner will use and its torch, Triton and PyYAML, the optional packages of
some variants, and where the kernels folder (run.py and the experiments)
was found. The Python is that of --python, by default the project's
.venv/bin/python where scripts/setup.sh made it, else the python3 beside
rooftool where rooftool is installed into a Python environment (pip
install rooftool), else python3 from PATH. Each problem comes with what to
do: for a missing torch, the pip command that installs
kernels/requirements-gpu.txt into that interpreter.

Required (a problem where missing or broken): a GPU with its driver, ncu,
nsys and its importer's libraries, permission to read performance
counters, the runner's Python, the kernels folder, and on a machine with a
GPU torch (a CUDA build), Triton and PyYAML (warnings without a GPU).
Optional (never a problem): nvcc, numpy, and the packages some variants need, each
named with the variants it runs and how to install it: quack
(quack-kernels with nvidia-cutlass-dsl), cutlass (nvidia-cutlass) and fla
(flash-linear-attention), the wheel's extras rooftool[quack],
rooftool[cutlass] and rooftool[fla] (rooftool[all]: all three, torch and
Triton).

Exit status: 0 when nothing required is missing, 1 when a problem was found
(and with --strict when a warning was), 2 bad usage. Doctor runs on
machines without a GPU too and says so (exit 1 there: nothing can profile).

--format table (default) prints one line per finding; csv has the columns
check, level (ok, info, warn, problem), detail and fix; json is
{"rooftool_doctor": 1, "problems": N, "findings": [...]} with the same keys
(JSON.md). --json is the old spelling of --format json.`,
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

// doctorJSONVersion is the "rooftool_doctor" field of the JSON output; it
// changes when a key is renamed or removed or a value changes meaning.
const doctorJSONVersion = 1

// doctorJSON is the JSON output of `rooftool doctor --format json`.
type doctorJSON struct {
	Version  int              `json:"rooftool_doctor"`
	Problems int              `json:"problems"` // findings of level "problem"
	Findings []launch.Finding `json:"findings"`
}

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	if err := checkDataFormat("doctor", opts.Format); err != nil {
		return err
	}
	fs := launch.Doctor(ctx, launch.DoctorConfig{
		Python: opts.Python, KernelsDir: opts.Kernels, NCU: opts.NCU, Nsys: opts.Nsys,
		NsysLibs: opts.NsysLibs, Probe: opts.Probe,
	})
	if fs == nil {
		fs = []launch.Finding{}
	}
	problems, warnings := 0, 0
	for _, f := range fs {
		switch f.Level {
		case launch.LevelProblem:
			problems++
		case launch.LevelWarn:
			warnings++
		}
	}
	csv, err := tableout.Records(fs)
	if err != nil {
		return err
	}
	err = writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: doctorJSON{Version: doctorJSONVersion, Problems: problems, Findings: fs},
		Text: func(w io.Writer) error { return writeDoctorText(w, fs, problems) },
	})
	if err != nil {
		return err
	}
	switch {
	case problems > 0:
		return fmt.Errorf("doctor: %d problem(s) found: this machine cannot profile until they are fixed", problems)
	case opts.Strict && warnings > 0:
		return fmt.Errorf("doctor: %d warning(s) found (--strict)", warnings)
	}
	return nil
}

// writeDoctorText prints one line per finding, its fix under it, and the
// count of problems.
func writeDoctorText(w io.Writer, fs []launch.Finding, problems int) error {
	for _, f := range fs {
		fmt.Fprintf(w, "%-8s %-15s %s\n", f.Level, f.Check, f.Detail)
		if f.Fix != "" {
			fmt.Fprintf(w, "%-8s %-15s fix: %s\n", "", "", f.Fix)
		}
	}
	var err error
	if problems == 0 {
		_, err = fmt.Fprintln(w, "no problems found")
	} else {
		_, err = fmt.Fprintf(w, "%d problem(s) found\n", problems)
	}
	return err
}
