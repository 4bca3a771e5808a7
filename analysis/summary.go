package analysis

import (
	"sort"

	"github.com/rooftool/rooftool/ingest"
)

// SummaryRow is one line of a kernel summary in the spirit of
// `nsys stats -r cuda_gpu_kern_sum`: one kernel name within one NVTX range.
type SummaryRow struct {
	Range     string  `json:"range"` // NVTX range path (outer/inner, e.g. experiment/variant/shape), "" outside any
	Name      string  `json:"name"`  // demangled base name
	Instances int     `json:"instances"`
	TotalNs   int64   `json:"total_ns"`
	AvgNs     float64 `json:"avg_ns"`
	MedNs     float64 `json:"med_ns"`
	MinNs     int64   `json:"min_ns"`
	MaxNs     int64   `json:"max_ns"`
}

// SummarySource picks the kernel rows a summary counts: the timeline
// (nsys, Kineto) when the tables have one, else the ncu kernel pass. A
// non-empty source restricts it to that source ("nsys", "ncu", "kineto").
// ncu range-pass rows are never kernels and are always left out.
func SummarySource(kernels []ingest.Kernel, source string) []ingest.Kernel {
	hasTimeline := false
	for _, k := range kernels {
		if k.Pass == ingest.PassTimeline {
			hasTimeline = true
			break
		}
	}
	var out []ingest.Kernel
	for _, k := range kernels {
		if k.Pass == ingest.PassRange {
			continue
		}
		switch {
		case source != "":
			if k.Source != source {
				continue
			}
		case hasTimeline:
			if k.Pass != ingest.PassTimeline {
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

// KernelSummary groups kernels by (NVTX range path, base name); a kernel
// with no path falls back to its innermost range. Nested ranges that end
// in the same name (every variant's "B=8,T=4096,..." of a profile run) stay
// apart. Rows are sorted by range, then total time descending, then name.
func KernelSummary(kernels []ingest.Kernel) []SummaryRow {
	type key struct{ rng, name string }
	groups := map[key][]int64{}
	for _, k := range kernels {
		name := k.ShortName
		if name == "" {
			name = k.Name
		}
		rng := k.RangePath
		if rng == "" {
			rng = k.Range
		}
		kk := key{rng, name}
		groups[kk] = append(groups[kk], k.DurationNs)
	}
	rows := make([]SummaryRow, 0, len(groups))
	for kk, d := range groups {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		var total int64
		for _, v := range d {
			total += v
		}
		n := len(d)
		med := float64(d[n/2])
		if n%2 == 0 {
			med = (float64(d[n/2-1]) + float64(d[n/2])) / 2
		}
		rows = append(rows, SummaryRow{
			Range: kk.rng, Name: kk.name, Instances: n, TotalNs: total,
			AvgNs: float64(total) / float64(n), MedNs: med, MinNs: d[0], MaxNs: d[n-1],
		})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Range != b.Range {
			return a.Range < b.Range
		}
		if a.TotalNs != b.TotalNs {
			return a.TotalNs > b.TotalNs
		}
		return a.Name < b.Name
	})
	return rows
}
