// Package reports is the last stage of the pipeline: from a run loaded
// and analysed by package pipeline (its facts, the experiments' claims and
// theoretical models, its manifest, checks and clocks) to go/no-go
// verdicts, rendered as a Markdown report, its JSON twin and plots
// (package roofline). It also compares two runs cell by cell (Diff). It
// reads no file of a run itself: package pipeline opens runs and their
// tables (WriteRun and DiffRuns call it).
//
// This file is the package API: WriteRun renders a run, the rest builds and formats the report.
package reports

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// Output formats of WriteRun.
const (
	FormatMarkdown = "md"   // report.md
	FormatJSON     = "json" // report.json
	FormatHTML     = "html" // report.html
)

// Formats are every output format of WriteRun, in the order it names
// them; DefaultFormats is what it writes when formats is empty: all of
// them (plots are always written).
var (
	Formats        = []string{FormatMarkdown, FormatJSON, FormatHTML}
	DefaultFormats = []string{FormatMarkdown, FormatJSON, FormatHTML}
)

// FileName is the file WriteRun writes format to: report.md, report.json,
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

// WriteRun renders the report of a run (rundir.Open, or rundir.OpenFS for
// an embedded one) into outDir ("" = the run's own folder): report.md,
// report.json (and report.html) for the given formats (empty =
// DefaultFormats), and the plots under outDir/plots/. The run is loaded by
// pipeline.Load, which reads nothing but the run (and, where the run keeps
// no snapshot of its specs and claims, the ones built into rooftool), so a
// run can be re-rendered offline anywhere. Files are written atomically.
func WriteRun(ctx context.Context, run *rundir.Run, outDir string, formats []string) error {
	return writeRunMem(ctx, run, outDir, formats, memory.DefaultAllocator)
}
