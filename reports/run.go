package reports

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/roofline"
	"github.com/rooftool/rooftool/spec"
)

// WarnPlotFailed is the code of a warning for a plot that could not be
// drawn: the report is still written, and says so.
const WarnPlotFailed = "plot-failed"

// writeFormats writes report.<format> for each format, atomically.
func writeFormats(outDir string, rep *Report, formats []string) error {
	for _, f := range formats {
		var buf bytes.Buffer
		var err error
		switch f {
		case FormatMarkdown:
			err = WriteMarkdown(&buf, rep)
		case FormatJSON:
			err = WriteJSON(&buf, rep)
		case FormatHTML:
			err = WriteHTML(&buf, rep, os.DirFS(outDir))
		}
		if err != nil {
			return err
		}
		p := filepath.Join(outDir, "report."+f)
		if err := rundir.WriteFileAtomic(p, buf.Bytes()); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// writePlots draws the charts roofline.Plan calls for into dir. A plot
// that fails becomes a warning in the report, never a failure of the report.
func writePlots(ctx context.Context, dir string, run *analysis.Run, exps []*spec.Experiment, ws []analysis.Warning) (map[string][]Plot, []analysis.Warning) {
	plots := map[string][]Plot{}
	charts := roofline.Plan(run, exps)
	if len(charts) == 0 {
		return plots, ws
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plots, append(ws, analysis.Warning{Code: WarnPlotFailed, Msg: fmt.Sprintf("plots: %v", err)})
	}
	for _, c := range charts {
		if ctx.Err() != nil {
			break
		}
		files, pw, err := safePlot(func() ([]string, []analysis.Warning, error) { return c.Write(dir, run) })
		title := c.Title()
		ws = append(ws, pw...)
		if err != nil {
			ws = append(ws, analysis.Warning{Code: WarnPlotFailed, Msg: fmt.Sprintf("%s not drawn: %v", title, err)})
		}
		sort.Strings(files)
		for _, f := range files {
			if !strings.HasSuffix(f, ".png") {
				continue
			}
			t := title
			switch base := strings.TrimSuffix(filepath.Base(f), ".png"); {
			case strings.HasSuffix(base, "-kernels"):
				t = "GPU time per kernel, " + title
			case strings.HasSuffix(base, "-sweep"):
				t = "speedup against the baseline, " + title
			}
			plots[c.Experiment] = append(plots[c.Experiment], Plot{Title: t, Path: plotPath(f)})
		}
	}
	return plots, ws
}

// safePlot runs a plot function, turning a panic (gonum panics on some
// degenerate data, e.g. zeros on a log axis) into an error.
func safePlot(f func() ([]string, []analysis.Warning, error)) (files []string, ws []analysis.Warning, err error) {
	defer func() {
		if r := recover(); r != nil {
			files, ws, err = nil, nil, fmt.Errorf("plotting panicked: %v", r)
		}
	}()
	return f()
}
