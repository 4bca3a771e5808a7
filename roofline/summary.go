package roofline

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/pipeline"
)

// JSONVersion is the "rooftool_roofline" field of the JSON summary; it
// changes when a key is renamed or removed or a value changes meaning.
const JSONVersion = 1

// Summary is what Draw says once its charts are drawn: with --format json
// one object, as text (WriteText) the files on stdout and the roofs and
// warnings on stderr.
type Summary struct {
	Version  int           `json:"rooftool_roofline"`
	GPU      string        `json:"gpu"`      // the device the kernels ran on, as the input names it ("" unknown)
	Files    []string      `json:"files"`    // the charts written, PNG and SVG
	Roofs    []gpu.Ceiling `json:"roofs"`    // the roofs drawn: name, kind, value (byte/s or FLOP/s), source
	Warnings []string      `json:"warnings"` // what drawing warned about, in order
	// before is how many of Warnings the text prints before the roofs
	// (those about --gpu and the export's device).
	before int
}

// Options say where Draw writes.
type Options struct {
	OutDir string
}

// Draw writes the charts of f (pipeline.Input.Facts) to opts.OutDir: one
// hierarchical roofline per (experiment, shape), the sweep charts of
// rooftool's cells, and one roofline named after the first input for the
// kernels of an export without rooftool's NVTX ranges. The Summary lists
// the files, the roofs and the warnings: --gpu of another compute
// capability than the export's device, a device the catalog lacks, the
// run's warnings and those of drawing. An export whose kernels get no
// point is bad input (*ingest.InputError) naming the counters it lacks,
// unless it states its own peaks: then its roofs are drawn and a warning
// says so. Where Draw fails, the Summary holds the warnings gathered so
// far.
func Draw(f *pipeline.Facts, opts Options) (Summary, error) {
	run, ceil := f.Run, f.Ceilings
	s := Summary{Version: JSONVersion, GPU: run.GPU, Files: []string{}, Roofs: append([]gpu.Ceiling{}, ceil.Items...)}
	s.Warnings = append([]string{}, ccMismatch(f.Input.GPU, f.GPUs)...)
	s.before = len(s.Warnings)
	if err := drawCharts(f, opts, &s); err != nil {
		return s, err
	}
	runWarnings := run.Warnings
	if f.Input.GPU.Name == "" && len(ceil.Items) == 0 {
		if name, cc, ok := uncataloguedGPU(f.GPUs, run.GPU); ok {
			// The analysis says "no GPU was named"; the export names one
			// that the catalog lacks.
			runWarnings = nil
			for _, w := range run.Warnings {
				if w.Code != analysis.WarnMissing || w.Metric != "pct_of_roof" {
					runWarnings = append(runWarnings, w)
				}
			}
			runWarnings = append([]analysis.Warning{{Code: analysis.WarnMissing, Metric: "pct_of_roof",
				Msg: fmt.Sprintf("no ceilings: the export states no peaks and its GPU %q%s is not in the catalog; %% of roof is left out: name a catalog GPU with --gpu (rooftool gpus)", name, cc)}}, runWarnings...)
		}
	}
	// The run's warnings come before those of drawing the charts.
	var ws []string
	for _, w := range runWarnings {
		ws = append(ws, w.Error())
	}
	s.Warnings = slices.Insert(s.Warnings, s.before, ws...)
	return s, nil
}

// drawCharts draws the charts of f into opts.OutDir, adding to s the
// files written and the warnings of drawing them.
func drawCharts(f *pipeline.Facts, opts Options, s *Summary) error {
	run, inputs := f.Run, f.Input.Args
	charts := Plan(run, f.Experiments)
	if len(charts) == 0 {
		return &ingest.InputError{File: strings.Join(inputs, " "), Err: errors.New("no ncu kernels or rooftool cells to draw")}
	}
	noPoints := "" // why the export's chart has roofs but no kernel point
	for _, c := range charts {
		var fs []string
		var ws []analysis.Warning
		if c.Experiment == "" && c.Shape == "" && c.Sweep == nil {
			// An export without rooftool's NVTX ranges: one roofline named after it.
			// A chart without a single kernel point is drawn only where the
			// export states its own peaks; else it is bad input.
			if placed, why := KernelPoints(run, "", ""); placed == 0 && why != "" {
				hint := points.hint(points.missing(run, "", "", f.MetricNames()))
				if !deviceRoofs(f.Ceilings) {
					return &ingest.InputError{File: strings.Join(inputs, " "), Err: errors.New(why + "; nothing to draw (the export states no peaks either)" + onNextLine(hint))}
				}
				noPoints = why + "; the chart shows the export's roofs only" + onNextLine(hint)
			}
			p, w, err := RooflinePlot(run, "", "")
			if err != nil {
				return err
			}
			p.Title.Text = filepath.Base(inputs[0]) + "  on " + orUnknownGPU(run.GPU)
			base := strings.TrimSuffix(filepath.Base(inputs[0]), filepath.Ext(inputs[0]))
			if fs, err = SaveRoofline(p, opts.OutDir, FileName(base, "", "roofline")); err != nil {
				return err
			}
			ws = w
		} else {
			var err error
			fs, ws, err = c.Write(opts.OutDir, run)
			if errors.Is(err, ErrNoData) {
				continue
			}
			if err != nil {
				return err
			}
		}
		s.Files = append(s.Files, fs...)
		for _, w := range ws {
			s.Warnings = append(s.Warnings, w.Error())
		}
	}
	if noPoints != "" {
		s.Warnings = append(s.Warnings, noPoints)
	}
	return nil
}

// WriteText writes s as text: the warnings about the GPU, the roofs (a
// catalog roof's source shortened to its entry) and the other warnings on
// errw, then the files on out.
func (s Summary) WriteText(out, errw io.Writer) error {
	for _, w := range s.Warnings[:s.before] {
		fmt.Fprintf(errw, "warning: %s\n", w)
	}
	for _, it := range s.Roofs {
		src := it.Source
		if i := strings.Index(src, " ("); i > 0 && strings.HasPrefix(src, "catalog:") {
			src = src[:i] // the catalog entry; `rooftool gpus NAME` shows its sources
		}
		fmt.Fprintf(errw, "roof %-12s %-14s %s\n", it.Name, gpu.FormatRate(it.Value, it.Kind), src)
	}
	for _, w := range s.Warnings[s.before:] {
		fmt.Fprintf(errw, "warning: %s\n", w)
	}
	for _, f := range s.Files {
		if _, err := fmt.Fprintln(out, f); err != nil {
			return err
		}
	}
	return nil
}

// deviceRoofs reports whether some roof comes from the export's own peak
// metrics (ncu's peak_sustained, as its SpeedOfLight_RooflineChart section
// records them) rather than the catalog or measured ceilings.
func deviceRoofs(c gpu.Ceilings) bool {
	for _, it := range c.Items {
		if strings.HasPrefix(it.Source, "device:") {
			return true
		}
	}
	return false
}

// uncataloguedGPU returns the device name the export states when the
// catalog has no entry for it, with its compute capability (" (CC 12.0)")
// where the export (its gpus rows) states that too.
func uncataloguedGPU(gpus []ingest.GPU, name string) (string, string, bool) {
	if name == "" {
		return "", "", false
	}
	if _, ok := gpu.Lookup(name); ok {
		return "", "", false
	}
	cc := ""
	for _, g := range gpus {
		if g.Name == name && (g.CCMajor > 0 || g.CCMinor > 0) {
			cc = fmt.Sprintf(" (CC %d.%d)", g.CCMajor, g.CCMinor)
			break
		}
	}
	return name, cc, true
}

// ccMismatch warns where --gpu names a GPU of another compute capability
// than a device the export states (ncu's CC column or
// device__attribute_compute_capability_*, else the catalog entry of its
// display name): the roofs drawn are then those of another GPU. It names
// both GPUs and both capabilities; nothing where they agree or either is
// not known.
func ccMismatch(g pipeline.GPU, gpus []ingest.GPU) []string {
	spec := g.Spec
	if g.Name == "" || spec.CC == "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range gpus {
		cc := ""
		if d.CCMajor > 0 {
			cc = fmt.Sprintf("%d.%d", d.CCMajor, d.CCMinor)
		} else if s, ok := gpu.Lookup(d.Name); ok {
			cc = s.CC
		}
		if cc == "" || cc == spec.CC {
			continue
		}
		name := d.Name
		if name == "" {
			name = "a GPU"
		}
		w := fmt.Sprintf("--gpu %s is %s (compute capability %s), but the export's kernels ran on %s (compute capability %s): the roofs drawn are the %s's, not those of the GPU the kernels ran on; name that GPU with --gpu (rooftool gpus lists each with its compute capability)",
			g.Name, spec.Name, spec.CC, name, cc, spec.Name)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// onNextLine is s on a line of its own after what precedes it ("" stays "").
func onNextLine(s string) string {
	if s == "" {
		return ""
	}
	return "\n" + s
}

func orUnknownGPU(s string) string {
	if s == "" {
		return "unknown GPU (use --gpu)"
	}
	return s
}
