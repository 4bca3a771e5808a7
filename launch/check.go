package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/spec"
)

// cellJSON is the runner's per-cell verdict (check.json, profile.json,
// time-error.json, or a timing JSON).
type cellJSON struct {
	OK        *bool     `json:"ok"`
	Skipped   bool      `json:"skipped"`
	Error     string    `json:"error"`
	MaxRelErr *float64  `json:"max_rel_err"`
	Tolerance *float64  `json:"tolerance"`
	SamplesMs []float64 `json:"samples_ms"`
	// RawCode is the runner's record of the code it ran ("code": knobs,
	// picks, launch path), decoded into code; absent in older runners.
	RawCode json.RawMessage `json:"code"`
	// CellSeconds and CellStarted (Unix seconds) are the runner's own
	// clock of the cell; absent in older runners.
	CellSeconds *float64 `json:"cell_seconds"`
	CellStarted *float64 `json:"cell_started"`

	code    *rundir.Code
	codeErr error // a "code" value of the wrong shape: warned about, not fatal
}

// readCellJSON reads a per-cell JSON: ok is false when there is none.
func readCellJSON(p string) (c cellJSON, ok bool, err error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return cellJSON{}, false, nil
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return cellJSON{}, true, fmt.Errorf("%s: %w", p, err)
	}
	c.code, c.codeErr = decodeCode(c.RawCode)
	if c.codeErr != nil {
		c.codeErr = fmt.Errorf("%s: \"code\": %w: not recorded", p, c.codeErr)
	}
	return c, true, nil
}

// readCell is readCellJSON of cell's file p that warns about a malformed
// "code" record and keeps the runner's clock of the cell (a.clock).
func (a *attemptResult) readCell(cell, p string) (cellJSON, bool, error) {
	c, ok, err := readCellJSON(p)
	if c.codeErr != nil {
		a.warn = append(a.warn, c.codeErr.Error())
	}
	if c.CellSeconds != nil && *c.CellSeconds > 0 {
		if _, have := a.cellSec[cell]; !have {
			a.cellSec[cell] = *c.CellSeconds
		}
	}
	if c.CellStarted != nil && *c.CellStarted > 0 && (a.firstStart == 0 || *c.CellStarted < a.firstStart) {
		a.firstStart = *c.CellStarted
	}
	return c, ok, err
}

// codeJSON is the runner's "code" record: {"knobs": {NAME: value},
// "picks": {key: value}, "launch": "plan" | "triton-dispatch"}.
type codeJSON struct {
	Knobs  map[string]json.RawMessage `json:"knobs"`
	Picks  map[string]json.RawMessage `json:"picks"`
	Launch json.RawMessage            `json:"launch"`
}

// decodeCode turns a "code" value into a rundir.Code: nil when it is absent
// or null. Values that are not strings keep their JSON text (1, true).
func decodeCode(raw json.RawMessage) (*rundir.Code, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var cj codeJSON
	if err := json.Unmarshal(raw, &cj); err != nil {
		return nil, fmt.Errorf("want an object with knobs, picks and launch: %w", err)
	}
	c := &rundir.Code{Knobs: jsonTexts(cj.Knobs), Picks: jsonTexts(cj.Picks), Launch: jsonText(cj.Launch)}
	return c, nil
}

func jsonTexts(m map[string]json.RawMessage) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = jsonText(v)
	}
	return out
}

// jsonText is a JSON string's value, "" for null, else the compact JSON.
func jsonText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) == nil {
		return b.String()
	}
	return string(v)
}

func (c cellJSON) status() rundir.PassStatus {
	switch {
	case c.OK != nil && *c.OK:
		return rundir.PassStatus{Status: rundir.StatusOK, Code: c.code}
	case c.Skipped:
		return rundir.PassStatus{Status: rundir.StatusSkipped, Reason: c.Error, Code: c.code}
	}
	why := c.Error
	if why == "" {
		why = "runner reported failure without a reason"
	}
	return rundir.PassStatus{Status: rundir.StatusFailed, Reason: why, Code: c.code}
}

func removeCellFiles(dir string, cells []string, suffixes ...string) {
	for _, c := range cells {
		for _, s := range suffixes {
			os.Remove(cellFile(dir, c, s))
		}
	}
}

func (r *Runner) attemptCheck(ctx context.Context, exp *spec.Experiment, cells []string) attemptResult {
	dir := r.rawDir(rundir.PassCheck, exp.Name)
	removeCellFiles(dir, cells, ".check.json")
	res := RunCmd(ctx, Cmd{Argv: r.runnerArgv("check", exp, cells, dir), Env: r.runnerEnvVars(nil), Log: filepath.Join(dir, "runner.log"), Timeout: r.timeout(len(cells)), OnLine: r.onLine(exp.Name, rundir.PassCheck)})
	a := newAttempt("runner check")
	a.res = res
	for _, c := range cells {
		p := cellFile(dir, c, ".check.json")
		cj, ok, err := a.readCell(c, p)
		if !ok {
			continue
		}
		a.ran[c] = true
		if err != nil {
			a.got[c] = rundir.PassStatus{Status: rundir.StatusFailed, Reason: err.Error()}
			continue
		}
		st := cj.status()
		st.Files = []string{r.rel(p)}
		if st.Status == rundir.StatusFailed && cj.MaxRelErr != nil && cj.Tolerance != nil && !strings.Contains(st.Reason, "toler") {
			st.Reason += fmt.Sprintf(" (max rel err %.3g, tolerance %.3g)", *cj.MaxRelErr, *cj.Tolerance)
		}
		a.got[c] = st
	}
	return a
}
