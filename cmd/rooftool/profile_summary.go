package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/launch/cmdprog"
	"github.com/rooftool/rooftool/pipeline"
	"github.com/rooftool/rooftool/reports"
)

// The summaries of profile and merge: as text, line by line on stdout as
// their facts become known (summaryText); with --format json, one object
// on stdout at the end.

// profileJSONVersion and mergeJSONVersion are the version keys of the JSON
// summaries; each changes when a key is renamed or removed or a value
// changes meaning.
const (
	profileJSONVersion = 1
	mergeJSONVersion   = 1
)

// passCount is one pass's cells by status.
type passCount struct {
	Pass    string `json:"pass"`
	OK      int    `json:"ok"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	// RangeMethods (range pass only) counts its ok cells by replay method
	// (rundir.MethodRange, MethodAppRange, MethodGraph; "" unrecorded).
	RangeMethods map[string]int `json:"range_methods,omitempty"`
	// BelowCoverage (range pass only) counts its ok cells whose range
	// covered less than rundir.MinRangeCoverage of their kernel pass.
	BelowCoverage int `json:"below_coverage,omitempty"`
}

// cellFailure is one failed pass of a cell.
type cellFailure struct {
	Cell   string `json:"cell"` // experiment/variant/shape
	Pass   string `json:"pass"`
	Reason string `json:"reason"`
}

// cmdCells says what a --cmd program marked and where the helper it
// imported lies.
type cmdCells struct {
	Cells  int    `json:"cells"`
	Marked string `json:"marked"` // the manifest's cmdprog.OptionCells
	Helper string `json:"helper"` // the folder to put on PYTHONPATH for a plain run of the program
}

// profileSummary is what profile says of a run: its passes' counts, the
// failed cells, the warnings, and the files it wrote.
type profileSummary struct {
	Version  int           `json:"rooftool_profile"`
	Run      string        `json:"run"`
	GPU      string        `json:"gpu"` // the device the run ran on
	Passes   []passCount   `json:"passes"`
	Failed   []cellFailure `json:"failed"`
	Warnings []string      `json:"warnings"`      // the manifest's
	Cmd      *cmdCells     `json:"cmd,omitempty"` // --cmd only
	Tables   string        `json:"tables,omitempty"`
	Report   string        `json:"report"`           // report.md; "" not written
	Shards   []string      `json:"shards,omitempty"` // --gpus: the shards' run directories, kept
}

// mergeSummary is what merge says of the run it made.
type mergeSummary struct {
	Version  int      `json:"rooftool_merge"`
	Run      string   `json:"run"`
	Cells    int      `json:"cells"`
	From     []string `json:"from"`     // the run directories merged
	Warnings []string `json:"warnings"` // what merging them warned about
	Report   string   `json:"report"`   // report.md; "" not written
}

// summaryText is where a summary's text goes: stdout, or nowhere where
// --format json prints the summary whole at the end.
func summaryText(streams *IO, format string) io.Writer {
	if format == tableout.FormatJSON {
		return io.Discard
	}
	return streams.Out
}

// newProfileSummary counts m's passes by status and lists its failed
// cells (sorted by cell, then pass) and warnings; dir is the run
// directory as the user named it.
func newProfileSummary(dir string, m *rundir.Manifest) profileSummary {
	s := profileSummary{Version: profileJSONVersion, Run: dir, GPU: m.GPU.Name, Passes: []passCount{}, Failed: []cellFailure{}, Warnings: append([]string{}, m.Warnings...)}
	counts := map[string]*passCount{}
	for _, p := range rundir.AllPasses {
		counts[p] = &passCount{Pass: p}
	}
	seen := map[string]bool{}
	for _, c := range m.Cells {
		for p, st := range c.Passes {
			pc := counts[p]
			if pc == nil {
				continue
			}
			seen[p] = true
			switch st.Status {
			case rundir.StatusOK:
				pc.OK++
				if p == rundir.PassRange {
					if pc.RangeMethods == nil {
						pc.RangeMethods = map[string]int{}
					}
					pc.RangeMethods[st.Method]++
					if !st.Coverage.Complete(st.Method) {
						pc.BelowCoverage++
					}
				}
			case rundir.StatusFailed:
				pc.Failed++
				s.Failed = append(s.Failed, cellFailure{c.Key().String(), p, st.Reason})
			case rundir.StatusSkipped:
				pc.Skipped++
			}
		}
	}
	for _, p := range rundir.AllPasses {
		if seen[p] {
			s.Passes = append(s.Passes, *counts[p])
		}
	}
	sort.Slice(s.Failed, func(i, j int) bool {
		if s.Failed[i].Cell != s.Failed[j].Cell {
			return s.Failed[i].Cell < s.Failed[j].Cell
		}
		return s.Failed[i].Pass < s.Failed[j].Pass
	})
	return s
}

// writeProfileSummaryText prints one line per pass with its counts, then
// the failed cells with their reasons, the warnings, and what a --cmd
// program marked.
func writeProfileSummaryText(w io.Writer, s profileSummary) {
	fmt.Fprintf(w, "run: %s\ngpu: %s\n", s.Run, s.GPU)
	for _, p := range s.Passes {
		fmt.Fprintf(w, "%-7s %d ok, %d failed, %d skipped%s\n", p.Pass+":", p.OK, p.Failed, p.Skipped, rangeNote(p))
	}
	for _, f := range s.Failed {
		fmt.Fprintf(w, "failed: %s [%s]: %s\n", f.Cell, f.Pass, f.Reason)
	}
	for _, wn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	if c := s.Cmd; c != nil {
		fmt.Fprintf(w, "cells: %d marked by --cmd (%s)\n", c.Cells, c.Marked)
		fmt.Fprintf(w, "helper: %s (rooftool_marks; PYTHONPATH=%s for a plain run of the program)\n", c.Helper, c.Helper)
	}
}

// rangeNote tells how the range pass's ok cells were replayed, e.g.
// " (2 range, 1 app-range; 1 below 0.90 of the kernel pass)"; "" for the
// other passes.
func rangeNote(p passCount) string {
	if p.Pass != rundir.PassRange || len(p.RangeMethods) == 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{rundir.MethodRange, rundir.MethodAppRange, rundir.MethodGraph, ""} {
		if n := p.RangeMethods[k]; n > 0 {
			name := k
			if name == "" {
				name = "method unrecorded"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	note := " (" + strings.Join(parts, ", ")
	if p.BelowCoverage > 0 {
		note += fmt.Sprintf("; %d below %.2f of the kernel pass", p.BelowCoverage, rundir.MinRangeCoverage)
	}
	return note + ")"
}

// writeRunReport renders a run's go/no-go report (report.md, report.json,
// report.html, plots/) into its directory, as `rooftool report` would, and
// returns the path of report.md; "" (and a note on stderr) where the run
// has no tables.
func writeRunReport(ctx context.Context, streams *IO, dir string) (string, error) {
	if err := pipeline.CheckRunTables(dir); err != nil {
		fmt.Fprintf(streams.Err, "report: not written: %v\n", err)
		return "", nil
	}
	_, res, err := loadRun(ctx, dir, pipeline.Options{})
	if err == nil {
		err = reports.Write(ctx, res, dir, reports.DefaultFormats)
	}
	if err != nil {
		return "", fmt.Errorf("the run is kept, but its report failed: %w (retry with: rooftool report %s)", err, dir)
	}
	return filepath.Join(dir, reports.FileName(reports.FormatMarkdown)), nil
}

// cmdSummary is what a --cmd program marked (nil for the experiments).
func cmdSummary(opts *ProfileOptions, dir string, m *rundir.Manifest) *cmdCells {
	if opts.Cmd == "" || m.Options[cmdprog.OptionHelper] == "" {
		return nil
	}
	return &cmdCells{Cells: len(m.Cells), Marked: m.Options[cmdprog.OptionCells], Helper: filepath.Join(dir, cmdprog.MarksHelperDir)}
}

// writeJSONSummary writes s as the JSON summary where format asks for it.
func writeJSONSummary(streams *IO, format string, s any) error {
	if format != tableout.FormatJSON {
		return nil
	}
	return tableout.WriteJSON(streams.Out, s)
}
