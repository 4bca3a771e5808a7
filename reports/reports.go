// Package reports is the last stage of the pipeline: from a run's facts
// (package analysis), the experiments' claims and theoretical models
// (package kernels, claims.yaml) and the run manifest (package
// kernels/launch) to go/no-go verdicts, rendered as a Markdown report, its
// JSON twin and plots (package roofline). It also compares two runs cell by
// cell (Diff).
//
// This file is the API that the profile command and the lead call.
package reports

import "context"

// Output formats of WriteRun.
const (
	FormatMarkdown = "md"   // report.md
	FormatJSON     = "json" // report.json
	FormatHTML     = "html" // report.html
)

// DefaultFormats is what WriteRun writes when formats is empty.
var DefaultFormats = []string{FormatMarkdown, FormatJSON}

// WriteRun renders the report of the run directory runDir (manifest.json,
// tables/*.parquet, and where present ceilings.json, raw/check/ and the
// timing JSON files of raw/timing/) into outDir
// (outDir "" = runDir): report.md, report.json (and report.html) for the
// given formats (empty = DefaultFormats), and the plots under outDir/plots/.
// It reads nothing but the run directory and the embedded experiment specs,
// so a run can be re-rendered offline anywhere. Files are written atomically.
func WriteRun(ctx context.Context, runDir, outDir string, formats []string) error {
	return writeRun(ctx, runDir, outDir, formats)
}
