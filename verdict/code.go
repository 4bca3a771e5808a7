package verdict

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/analysis"
	"github.com/rooftool/rooftool/ingest/rundir"
)

// codeDiffers compares what the passes of one cell report having run
// (rundir.Code: knobs, implementation picks, launch path). Passes that
// ran the cell with different knobs or picks measured different code: the
// cell gets a passes-differ warning naming each differing key and its value
// per pass. Passes without a record (older runs) are not compared.
func codeDiffers(mc *rundir.Cell) *analysis.Warning {
	type rec struct {
		pass string
		vals map[string]string
	}
	var recs []rec
	for _, p := range rundir.AllPasses {
		ps, ok := mc.Passes[p]
		if !ok || ps.Code == nil || ps.Status != rundir.StatusOK {
			continue
		}
		v := map[string]string{}
		for k, x := range ps.Code.Knobs {
			v["knob "+k] = x
		}
		for k, x := range ps.Code.Picks {
			v["pick "+k] = x
		}
		if ps.Code.Launch != "" {
			v["launch"] = ps.Code.Launch
		}
		recs = append(recs, rec{p, v})
	}
	if len(recs) < 2 {
		return nil
	}
	keys := map[string]bool{}
	for _, r := range recs {
		for k := range r.vals {
			keys[k] = true
		}
	}
	var diffs []string
	for k := range keys {
		// A pick only some passes made (a pass that never reached that
		// code path) is not a difference; a value two passes disagree on is.
		seen := map[string][]string{}
		for _, r := range recs {
			if v, ok := r.vals[k]; ok {
				seen[v] = append(seen[v], r.pass)
			}
		}
		if len(seen) < 2 {
			continue
		}
		var parts []string
		for v, ps := range seen {
			parts = append(parts, fmt.Sprintf("%s=%q", strings.Join(ps, ","), v))
		}
		sort.Strings(parts)
		diffs = append(diffs, k+": "+strings.Join(parts, " vs "))
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	return &analysis.Warning{Code: analysis.WarnPassesDiffer,
		Msg: "the passes ran the cell with different code: " + strings.Join(diffs, "; ")}
}
