package analysis

import "github.com/rooftool/rooftool/ingest"

// NsysKernelSummary is KernelSummary over the kernels of nsys SQLite
// exports as ingest.NsysKernelGroups reads them (kernel table and StringIds
// alone): every kernel is outside every NVTX range, so it is the summary
// of exports without ranges, or of any export with opts.Flat and no
// opts.Range or opts.RangedOnly. It returns the warnings of the reads.
func NsysKernelSummary(paths []string, opts SummaryOptions) (Summary, []ingest.Meta, error) {
	if err := opts.Validate(); err != nil {
		return Summary{}, nil, err
	}
	match, _ := RangeMatcher(opts.Range)
	type key struct{ rng, name string }
	index := map[key]int{}
	var groups []SummaryGroup
	var warn []ingest.Meta
	for _, p := range paths {
		gs, w, err := ingest.NsysKernelGroups(p)
		if err != nil {
			return Summary{}, nil, err
		}
		warn = append(warn, w...)
		for _, g := range gs {
			k := ingest.Kernel{Name: g.Name, ShortName: g.ShortName, Mangled: g.Mangled}
			rng, name, ok := SummaryKey(&k, opts, match)
			if !ok {
				continue
			}
			i, seen := index[key{rng, name}]
			if !seen {
				i = len(groups)
				index[key{rng, name}] = i
				groups = append(groups, SummaryGroup{Range: rng, Name: name})
			}
			groups[i].Durations = append(groups[i].Durations, g.Durations...)
		}
	}
	s, err := SummariseGroups(groups, opts)
	return s, warn, err
}
