package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/kernels"
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
	out := opts.Output
	if st, err := os.Stat(out); (err == nil && st.IsDir()) || strings.HasSuffix(out, string(os.PathSeparator)) {
		out = filepath.Join(out, "ceilings.json")
	}
	// The folders of -o are made now, so that a path that cannot be made
	// fails before the measurement, and removed again where nothing is
	// written into them.
	undo, err := mkdirAllUndo(filepath.Dir(out))
	if err != nil {
		return fmt.Errorf("ceilings: -o %s: %w", opts.Output, err)
	}
	written := false
	defer func() {
		if !written {
			undo()
		}
	}()
	tmpDir, err := os.MkdirTemp("", "rooftool-ceilings-")
	if err != nil {
		return fmt.Errorf("ceilings: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	script := opts.Script
	if script == "" {
		script = filepath.Join(tmpDir, "ceilings.py")
		if err := os.WriteFile(script, kernels.CeilingsScript, 0o644); err != nil {
			return fmt.Errorf("ceilings: write script: %w", err)
		}
	}
	if opts.Python == "" {
		opts.Python = launch.DefaultPython()
	}
	python, err := exec.LookPath(opts.Python)
	if err != nil {
		return usageErrorf("ceilings: --python %s: %v", opts.Python, err)
	}
	tmpOut := filepath.Join(tmpDir, "ceilings.json")
	args := []string{script, "--out", tmpOut, "--reps", fmt.Sprint(opts.Reps)}
	if opts.Quick {
		args = append(args, "--quick")
	}
	cmd := exec.CommandContext(ctx, python, args...)
	var stderr bytes.Buffer
	cmd.Stdout = opts.IO.Err
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	code := 0
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return fmt.Errorf("ceilings: run %s %s: %w", opts.Python, script, runErr)
		}
		code = ee.ExitCode()
	}
	if code != 0 && code != kernels.CeilingsExitSkipped {
		return fmt.Errorf("ceilings: %s %s exited with status %d: %s", opts.Python, script, code, ceilingsTail(stderr.String(), 2000))
	}
	data, err := os.ReadFile(tmpOut)
	if err != nil {
		return fmt.Errorf("ceilings: %s wrote no JSON: %w; stderr: %s", script, err, ceilingsTail(stderr.String(), 2000))
	}
	m, err := gpu.ParseMeasured(data)
	if err != nil {
		return fmt.Errorf("ceilings: JSON from %s: %w", script, err)
	}
	if m.Skipped != "" {
		return fmt.Errorf("ceilings: nothing measured: %s; %s not written", m.Skipped, out)
	}
	if len(m.Items) == 0 {
		var why []string
		for _, k := range slices.Sorted(maps.Keys(m.Errors)) {
			why = append(why, k+": "+m.Errors[k])
		}
		return fmt.Errorf("ceilings: nothing measured on %q (%s); %s not written", m.Device, strings.Join(why, "; "), out)
	}
	if err := ceilingsWriteFile(out, data); err != nil {
		return fmt.Errorf("ceilings: -o %s: %w", out, err)
	}
	written = true
	ceilingsTable(opts.IO.Out, m)
	for _, k := range slices.Sorted(maps.Keys(m.Errors)) {
		fmt.Fprintf(opts.IO.Err, "ceilings: %s not measured: %s\n", k, m.Errors[k])
	}
	fmt.Fprintf(opts.IO.Err, "ceilings: %d measured on %s -> %s\n", len(m.Items), m.Device, out)
	return nil
}

func ceilingsTable(w io.Writer, m *gpu.Measured) {
	spec, known := gpu.Lookup(m.Device)
	t := tableout.Table{Header: []string{"CEILING", "BEST", "MEDIAN", "OF DATASHEET", "METHOD"}}
	for _, it := range m.Items {
		of := "-"
		if known {
			peak := spec.Peak(strings.TrimSuffix(it.Name, " sgemm"))
			if it.Name == "DRAM" {
				peak = spec.DRAMBW
			}
			if peak > 0 {
				of = fmt.Sprintf("%.0f%%", 100*it.Value/peak)
			}
		}
		t.Rows = append(t.Rows, []string{it.Name, gpu.FormatRate(it.Value, it.Kind), gpu.FormatRate(it.Median, it.Kind), of, it.Method})
	}
	t.WriteText(w, tableout.Columns)
	if known {
		fmt.Fprintf(w, "datasheet: %s (rooftool gpus %s); measured at the clocks the GPU ran, datasheet peaks at boost\n", spec.Name, spec.Key)
	}
}

// mkdirAllUndo makes dir and the parents it lacks, and returns a function
// that removes the folders it made, innermost first, where they are still
// empty.
func mkdirAllUndo(dir string) (undo func(), err error) {
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}, err
	}
	return func() {
		for _, d := range made {
			if os.Remove(d) != nil {
				return
			}
		}
	}, nil
}

func ceilingsWriteFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func ceilingsTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
