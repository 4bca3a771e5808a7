package runsummary

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/cmdprog"
	"github.com/rooftool/rooftool/launch/runtables"
)

// The summaries of rooftool profile and merge, as typed values that the
// command prints as text or as JSON.

// ProfileJSONVersion and MergeJSONVersion are the version keys of the JSON
// summaries; each changes when a key is renamed or removed or a value
// changes meaning.
const (
	ProfileJSONVersion = 1
	MergeJSONVersion   = 1
)

// PassCount is one pass's cells by status.
type PassCount struct {
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

// CellFailure is one failed pass of a cell.
type CellFailure struct {
	Cell   string `json:"cell"` // experiment/variant/shape
	Pass   string `json:"pass"`
	Reason string `json:"reason"`
}

// CmdCells says what a --cmd program marked and where the helper it
// imported lies.
type CmdCells struct {
	Cells  int    `json:"cells"`
	Marked string `json:"marked"` // the manifest's cmdprog.OptionCells
	Helper string `json:"helper"` // the folder to put on PYTHONPATH for a plain run of the program
}

// ProfileSummary is what profile says of a run: its passes' counts, the
// failed cells, the warnings, and the files it wrote.
type ProfileSummary struct {
	Version  int           `json:"rooftool_profile"`
	Run      string        `json:"run"`
	GPU      string        `json:"gpu"` // the device the run ran on
	Passes   []PassCount   `json:"passes"`
	Failed   []CellFailure `json:"failed"`
	Warnings []string      `json:"warnings"`      // the manifest's
	Cmd      *CmdCells     `json:"cmd,omitempty"` // --cmd only
	Tables   string        `json:"tables,omitempty"`
	Report   string        `json:"report"`           // report.md; "" not written
	Shards   []string      `json:"shards,omitempty"` // --gpus: the shards' run directories, kept
}

// MergeSummary is what merge says of the run it made.
type MergeSummary struct {
	Version  int      `json:"rooftool_merge"`
	Run      string   `json:"run"`
	Cells    int      `json:"cells"`
	From     []string `json:"from"`     // the run directories merged
	Warnings []string `json:"warnings"` // what merging them warned about
	Report   string   `json:"report"`   // report.md; "" not written
}

// NewProfileSummary counts m's passes by status and lists its failed
// cells (sorted by cell, then pass) and warnings; dir is the run
// directory as the user named it.
func NewProfileSummary(dir string, m *rundir.Manifest) ProfileSummary {
	s := ProfileSummary{Version: ProfileJSONVersion, Run: dir, GPU: m.GPU.Name, Passes: []PassCount{}, Failed: []CellFailure{}, Warnings: append([]string{}, m.Warnings...)}
	counts := map[string]*PassCount{}
	for _, p := range rundir.AllPasses {
		counts[p] = &PassCount{Pass: p}
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
				s.Failed = append(s.Failed, CellFailure{c.Key().String(), p, st.Reason})
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

// RangeNote tells how the range pass's ok cells were replayed, e.g.
// " (2 range, 1 app-range; 1 below 0.90 of the kernel pass)"; "" for the
// other passes.
func (p PassCount) RangeNote() string {
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

// CmdSummary is what the --cmd program cmd marked in the run at dir (nil
// for the experiments: cmd "").
func CmdSummary(cmd, dir string, m *rundir.Manifest) *CmdCells {
	if cmd == "" || m.Options[cmdprog.OptionHelper] == "" {
		return nil
	}
	return &CmdCells{Cells: len(m.Cells), Marked: m.Options[cmdprog.OptionCells], Helper: filepath.Join(dir, cmdprog.MarksHelperDir)}
}

// WriteText prints one line per pass with its counts, then
// the failed cells with their reasons, the warnings, and what a --cmd
// program marked.
func (s ProfileSummary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "run: %s\ngpu: %s\n", s.Run, s.GPU)
	for _, p := range s.Passes {
		fmt.Fprintf(w, "%-7s %d ok, %d failed, %d skipped%s\n", p.Pass+":", p.OK, p.Failed, p.Skipped, p.RangeNote())
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

// NothingMeasured is an error (exit 1, machine or tool failure) when no
// pass of any cell of m finished ok: no GPU, no profiler, or every cell
// failing. It names the first failure's reason.
func NothingMeasured(m *rundir.Manifest) error {
	why := ""
	for _, c := range m.Cells {
		passes := make([]string, 0, len(c.Passes))
		for p := range c.Passes {
			passes = append(passes, p)
		}
		sort.Strings(passes)
		for _, p := range passes {
			st := c.Passes[p]
			if st.Status == rundir.StatusOK {
				return nil
			}
			if why == "" && st.Reason != "" {
				why = fmt.Sprintf("; first: %s/%s/%s [%s]: %s", c.Experiment, c.Variant, c.Shape, p, st.Reason)
			}
		}
	}
	return fmt.Errorf("nothing measured: no pass of the %d cell(s) finished ok%s", len(m.Cells), why)
}

// WarmLine is one line on a warm stage's outcome.
func WarmLine(w *rundir.Warm) string {
	switch {
	case w == nil:
		return "nothing to compile"
	case w.Skipped != "":
		return fmt.Sprintf("nothing compiled ahead (%s), %.1f s", w.Skipped, w.Seconds)
	}
	s := fmt.Sprintf("%d kernels (%d new) in %d processes, %.1f s", w.Kernels, w.Compiled, w.Processes, w.Seconds)
	if len(w.Failed) > 0 {
		s += "; failed: " + strings.Join(w.Failed, "; ")
	}
	return s
}

// Reingest rebuilds run directory dir's tables from the raw exports its
// manifest lists (runtables.Reingest) and returns the run's summary, its
// tables folder named, and the warnings of the ingest.
func Reingest(dir string) (ProfileSummary, []string, error) {
	_, warns, err := runtables.Reingest(dir)
	if err != nil {
		return ProfileSummary{}, warns, err
	}
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return ProfileSummary{}, warns, err
	}
	s := NewProfileSummary(dir, m)
	s.Tables = filepath.Join(dir, rundir.TablesDir)
	return s, warns, nil
}
