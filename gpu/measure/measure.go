package measure

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

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/kernels"
)

// FileName is the name of the measured ceilings in a run directory.
const FileName = "ceilings.json"

// Options say how to measure and where to write.
type Options struct {
	// Output is the file to write, or a directory (one that exists, or a
	// path ending in a separator) to write FileName into.
	Output string
	Python string // interpreter with torch (and triton), as the user named it
	Script string // ceilings script; "" = the copy embedded in rooftool
	Reps   int    // timed repetitions per ceiling (the best is the ceiling)
	Quick  bool   // smaller sizes: a smoke test, not a ceiling
	// Log takes what the script prints on its stdout while it measures.
	Log io.Writer
}

// PythonError says the interpreter Options.Python names is not there
// (bad usage, not a failure of the machine).
type PythonError struct {
	Python string
	Err    error
}

func (e *PythonError) Error() string { return fmt.Sprintf("--python %s: %v", e.Python, e.Err) }
func (e *PythonError) Unwrap() error { return e.Err }

// Run measures the ceilings and writes them to the output, whose folders
// it makes first, so that a path that cannot be made fails before the
// measurement, and removes again where nothing is written. It returns the
// ceilings and the file written. Without a CUDA device or torch (the
// script's skipped JSON), or where no ceiling could be measured, it writes
// nothing and says why; the ceilings that failed beside measured ones are
// in Measured.Errors.
func Run(ctx context.Context, opts Options) (*gpu.Measured, string, error) {
	out := opts.Output
	if st, err := os.Stat(out); (err == nil && st.IsDir()) || strings.HasSuffix(out, string(os.PathSeparator)) {
		out = filepath.Join(out, FileName)
	}
	undo, err := mkdirAllUndo(filepath.Dir(out))
	if err != nil {
		return nil, "", fmt.Errorf("-o %s: %w", opts.Output, err)
	}
	written := false
	defer func() {
		if !written {
			undo()
		}
	}()
	data, script, err := measure(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	m, err := gpu.ParseMeasured(data)
	if err != nil {
		return nil, "", fmt.Errorf("JSON from %s: %w", script, err)
	}
	if m.Skipped != "" {
		return nil, "", fmt.Errorf("nothing measured: %s; %s not written", m.Skipped, out)
	}
	if len(m.Items) == 0 {
		var why []string
		for _, k := range slices.Sorted(maps.Keys(m.Errors)) {
			why = append(why, k+": "+m.Errors[k])
		}
		return nil, "", fmt.Errorf("nothing measured on %q (%s); %s not written", m.Device, strings.Join(why, "; "), out)
	}
	if err := writeFile(out, data); err != nil {
		return nil, "", fmt.Errorf("-o %s: %w", out, err)
	}
	written = true
	return m, out, nil
}

// measure runs the script in a temporary directory and returns the JSON
// it wrote, and the script it ran (Options.Script, else the embedded
// copy's temporary path).
func measure(ctx context.Context, opts Options) ([]byte, string, error) {
	tmpDir, err := os.MkdirTemp("", "rooftool-ceilings-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmpDir)
	script := opts.Script
	if script == "" {
		script = filepath.Join(tmpDir, "ceilings.py")
		if err := os.WriteFile(script, kernels.CeilingsScript, 0o644); err != nil {
			return nil, "", fmt.Errorf("write script: %w", err)
		}
	}
	python, err := exec.LookPath(opts.Python)
	if err != nil {
		return nil, "", &PythonError{Python: opts.Python, Err: err}
	}
	tmpOut := filepath.Join(tmpDir, FileName)
	args := []string{script, "--out", tmpOut, "--reps", fmt.Sprint(opts.Reps)}
	if opts.Quick {
		args = append(args, "--quick")
	}
	cmd := exec.CommandContext(ctx, python, args...)
	var stderr bytes.Buffer
	cmd.Stdout = opts.Log
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	code := 0
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return nil, "", fmt.Errorf("run %s %s: %w", opts.Python, script, runErr)
		}
		code = ee.ExitCode()
	}
	if code != 0 && code != kernels.CeilingsExitSkipped {
		return nil, "", fmt.Errorf("%s %s exited with status %d: %s", opts.Python, script, code, tail(stderr.String(), 2000))
	}
	data, err := os.ReadFile(tmpOut)
	if err != nil {
		return nil, "", fmt.Errorf("%s wrote no JSON: %w; stderr: %s", script, err, tail(stderr.String(), 2000))
	}
	return data, script, nil
}

// WriteTable writes m as a table beside the datasheet's peaks of its
// device, where the catalog has it: each ceiling's best and median and
// the share of the datasheet's figure it reached.
func WriteTable(w io.Writer, m *gpu.Measured) error {
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
	if err := t.WriteText(w, tableout.Columns); err != nil {
		return err
	}
	if known {
		_, err := fmt.Fprintf(w, "datasheet: %s (rooftool gpus %s); measured at the clocks the GPU ran, datasheet peaks at boost\n", spec.Name, spec.Key)
		return err
	}
	return nil
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

// writeFile writes data to path through a temporary file renamed into
// place, so that a crash never leaves half a file.
func writeFile(path string, data []byte) error {
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

// tail is the last n bytes of s, trimmed.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
