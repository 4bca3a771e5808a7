package timing

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// PairedFile is the JSON that `kernels/run.py pair` writes per claim's
// baseline and candidate at one shape (kernels/README.md, "pair"): both
// variants timed in one process, alternating in blocks (ABBA), per launch
// method. It lives beside the timing files, raw/timing/<experiment>/paired/.
type PairedFile struct {
	Version    int    `json:"rooftool_paired"`
	Experiment string `json:"experiment"`
	Shape      string `json:"shape"`
	Baseline   string `json:"baseline"`
	Candidate  string `json:"candidate"`
	Device     string `json:"device"`
	GPUUUID    string `json:"gpu_uuid"`
	// DiscardedPairs were run first and thrown away (not in Launches).
	DiscardedPairs int            `json:"discarded_pairs"`
	Launches       []PairedLaunch `json:"launches"`
}

// PairedLaunch is the pairs of one launch method ("eager": the variants'
// own calls; "graph": CUDA-graph replays of one call), or Error where that
// method could not be timed (a call that cannot be captured).
type PairedLaunch struct {
	Launch string         `json:"launch"`
	Calls  map[string]int `json:"calls"`
	Pairs  []PairedSample `json:"pairs"`
	Error  string         `json:"error,omitempty"`
}

// PairedSample is one pair: each arm's block (time per call, ms) and the
// SM clock read at the block's end (0: not read).
type PairedSample struct {
	Order          string  `json:"order"` // "BC": baseline first; "CB": candidate first
	BaselineMs     float64 `json:"baseline_ms"`
	CandidateMs    float64 `json:"candidate_ms"`
	BaselineSMMHz  float64 `json:"baseline_sm_mhz"`
	CandidateSMMHz float64 `json:"candidate_sm_mhz"`
}

// PairedLaunches are the launch methods a paired record may hold.
var PairedLaunches = []string{"eager", "graph"}

func parsePairedFile(b *ingest.Builder, in ingest.Input, data []byte) error {
	var pf PairedFile
	if err := json.Unmarshal(data, &pf); err != nil {
		return ingest.BadInput(in.Path, 0, "", "paired timing JSON: %v", err)
	}
	if pf.Experiment == "" || pf.Shape == "" || pf.Baseline == "" || pf.Candidate == "" {
		return ingest.BadInput(in.Path, 0, "", "paired timing JSON lacks experiment, shape, baseline or candidate")
	}
	if pf.Baseline == pf.Candidate {
		return ingest.BadInput(in.Path, 0, "candidate", "baseline and candidate are both %q", pf.Baseline)
	}
	file := filepath.Base(in.Path)
	seen := map[string]bool{}
	for li, l := range pf.Launches {
		field := fmt.Sprintf("launches[%d]", li)
		known := false
		for _, x := range PairedLaunches {
			known = known || l.Launch == x
		}
		if !known {
			return ingest.BadInput(in.Path, 0, field+".launch", "launch %q, want one of %s", l.Launch, strings.Join(PairedLaunches, ", "))
		}
		if seen[l.Launch] {
			return ingest.BadInput(in.Path, 0, field+".launch", "launch %q given twice", l.Launch)
		}
		seen[l.Launch] = true
		if l.Error == "" && len(l.Pairs) == 0 {
			return ingest.BadInput(in.Path, 0, field+".pairs", "launch %q has neither pairs nor an error", l.Launch)
		}
		for j, p := range l.Pairs {
			for _, v := range []struct {
				k string
				x float64
			}{{"baseline_ms", p.BaselineMs}, {"candidate_ms", p.CandidateMs}} {
				if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x <= 0 {
					return ingest.BadInput(in.Path, 0, fmt.Sprintf("%s.pairs[%d].%s", field, j, v.k), "%v, want a positive time in ms", v.x)
				}
			}
		}
	}
	method := func(l string) string { return ingest.PairedMethodPrefix + l }
	for _, l := range pf.Launches {
		for _, arm := range []struct{ variant, role string }{{pf.Baseline, "baseline"}, {pf.Candidate, "candidate"}} {
			cell := pf.Experiment + "/" + arm.variant + "/" + file
			b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: ingest.MetaPaired + l.Launch + ".role", Value: arm.role})
			if l.Error != "" {
				b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: cell, Key: ingest.MetaPaired + l.Launch + ".error", Value: l.Error})
			}
		}
		for j, p := range l.Pairs {
			b.AddTiming(ingest.Timing{Experiment: pf.Experiment, Variant: pf.Baseline, Shape: pf.Shape, File: file, Device: pf.Device, Method: method(l.Launch), Rep: int32(j), Ms: p.BaselineMs})
			b.AddTiming(ingest.Timing{Experiment: pf.Experiment, Variant: pf.Candidate, Shape: pf.Shape, File: file, Device: pf.Device, Method: method(l.Launch), Rep: int32(j), Ms: p.CandidateMs})
			for _, c := range []struct {
				variant string
				mhz     float64
			}{{pf.Baseline, p.BaselineSMMHz}, {pf.Candidate, p.CandidateSMMHz}} {
				if c.mhz > 0 {
					b.AddMeta(ingest.Meta{Source: ingest.SourceTiming, File: pf.Experiment + "/" + c.variant + "/" + file, Key: fmt.Sprintf("%s%s.%d.sm_mhz", ingest.MetaPaired, l.Launch, j), Value: fmt.Sprint(c.mhz)})
				}
			}
		}
	}
	return nil
}
