// Package reports is the last stage of the pipeline: it renders the
// verdicts of package verdict on a run loaded and analysed by package
// pipeline as a Markdown report (report.md), its JSON twin (report.json,
// the Report model) and a self-contained page (report.html), with the
// plots of package roofline placed beside each experiment. Around the
// verdicts it states the run, each experiment's environment and
// crossovers, and where the run's time went. It decides nothing (Build
// asks package verdict) and opens and loads no run: the commands load a
// run with package pipeline (Open, Load) and hand Write what it gives.
// Two runs are compared by package diff.
//
// This file is the package API: Write renders a loaded run, the rest builds and formats the report.
package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/pipeline"
)

// Output formats of Write.
const (
	FormatMarkdown = "md"   // report.md
	FormatJSON     = "json" // report.json
	FormatHTML     = "html" // report.html
)

// Formats are every output format of Write, in the order it names
// them; DefaultFormats is what it writes when formats is empty: all of
// them (plots are always written).
var (
	Formats        = []string{FormatMarkdown, FormatJSON, FormatHTML}
	DefaultFormats = []string{FormatMarkdown, FormatJSON, FormatHTML}
)

// FileName is the file Write writes format to: report.md, report.json,
// report.html.
func FileName(format string) string { return "report." + format }

// ParseFormats normalises a list of report format names: case and
// surrounding spaces are ignored, "markdown" is FormatMarkdown, a repeated
// name counts once; an empty list is DefaultFormats. An unknown name is an
// error naming it.
func ParseFormats(formats []string) ([]string, error) {
	if len(formats) == 0 {
		return DefaultFormats, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range formats {
		f = strings.ToLower(strings.TrimSpace(f))
		switch f {
		case FormatMarkdown, "markdown":
			f = FormatMarkdown
		case FormatJSON, FormatHTML:
		default:
			return nil, fmt.Errorf("unknown report format %q (want md, json or html)", f)
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// Write renders the report of a loaded run (pipeline.Load; the report
// loads nothing itself) into outDir: report.md, report.json (and
// report.html) for the given formats (empty = DefaultFormats), and the
// plots under outDir/plots/. pipeline.Load reads nothing but the run (and,
// where the run keeps no snapshot of its specs and claims, the ones built
// into rooftool), so a run can be re-rendered offline anywhere. Files are
// written atomically.
func Write(ctx context.Context, res *pipeline.Result, outDir string, formats []string) error {
	formats, err := ParseFormats(formats)
	if err != nil {
		return err
	}
	if outDir == "" {
		return fmt.Errorf("run %s: no output directory named", res.Name)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	in := &Input{Result: *res}
	plotDir := filepath.Join(outDir, "plots")
	in.Plots, in.Warnings = writePlots(ctx, plotDir, in.Run, in.Experiments, in.Warnings)
	rep := Build(*in)
	return writeFormats(outDir, rep, formats)
}
