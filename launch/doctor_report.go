package launch

import (
	"fmt"
	"io"
)

// DoctorJSONVersion is the "rooftool_doctor" field of the JSON output; it
// changes when a key is renamed or removed or a value changes meaning.
const DoctorJSONVersion = 1

// DoctorReport is what `rooftool doctor` prints: its JSON output, and
// WriteText its text.
type DoctorReport struct {
	Version  int       `json:"rooftool_doctor"`
	Problems int       `json:"problems"` // findings of level "problem"
	Findings []Finding `json:"findings"`
}

// NewDoctorReport is the report of findings fs (Doctor's).
func NewDoctorReport(fs []Finding) *DoctorReport {
	if fs == nil {
		fs = []Finding{}
	}
	r := &DoctorReport{Version: DoctorJSONVersion, Findings: fs}
	for _, f := range fs {
		if f.Level == LevelProblem {
			r.Problems++
		}
	}
	return r
}

// Warnings counts the findings of level "warn".
func (r *DoctorReport) Warnings() int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == LevelWarn {
			n++
		}
	}
	return n
}

// WriteText prints one line per finding, its fix under it, and the
// count of problems.
func (r *DoctorReport) WriteText(w io.Writer) error {
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-8s %-15s %s\n", f.Level, f.Check, f.Detail)
		if f.Fix != "" {
			fmt.Fprintf(w, "%-8s %-15s fix: %s\n", "", "", f.Fix)
		}
	}
	var err error
	if r.Problems == 0 {
		_, err = fmt.Fprintln(w, "no problems found")
	} else {
		_, err = fmt.Fprintf(w, "%d problem(s) found\n", r.Problems)
	}
	return err
}
