package stats

import (
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/nsys"
)

// NsysSummaryGroups groups the kernels of nsys SQLite exports as
// nsys.KernelGroups reads them (kernel table and StringIds alone)
// for SummariseGroups, as GroupKey groups them: every kernel is outside
// every NVTX range, so it serves exports without ranges, or any export
// with opts.Flat and no opts.Range or opts.RangedOnly. reading, when not
// nil, is called before each export is read. It returns the warnings of
// the reads.
func NsysSummaryGroups(paths []string, opts Options, reading func(path string)) ([]Group, []ingest.Meta, error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	match, _ := RangeMatcher(opts.Range)
	type key struct{ rng, name string }
	index := map[key]int{}
	var groups []Group
	var warn []ingest.Meta
	for _, p := range paths {
		if reading != nil {
			reading(p)
		}
		gs, w, err := nsys.KernelGroups(p)
		if err != nil {
			return nil, nil, err
		}
		warn = append(warn, w...)
		for _, g := range gs {
			k := ingest.Kernel{Name: g.Name, ShortName: g.ShortName, Mangled: g.Mangled}
			rng, name, ok := GroupKey(&k, opts, match)
			if !ok {
				continue
			}
			i, seen := index[key{rng, name}]
			if !seen {
				i = len(groups)
				index[key{rng, name}] = i
				groups = append(groups, Group{Range: rng, Name: name})
			}
			groups[i].Durations = append(groups[i].Durations, g.Durations...)
			if NameFallback(&k, opts.Names) {
				groups[i].Fallbacks += len(g.Durations)
			}
		}
	}
	return groups, warn, nil
}
