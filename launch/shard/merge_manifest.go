package shard

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
)

// readParts reads the manifest and the spec hashes of each run of dirs,
// refusing a folder that is not a run and the output folder out (outAbs
// absolute) among them.
func readParts(out, outAbs string, dirs []string) ([]*rundir.Manifest, []map[string]string, error) {
	var err error
	ms := make([]*rundir.Manifest, len(dirs))
	specs := make([]map[string]string, len(dirs))
	for i, d := range dirs {
		if ms[i], err = rundir.ReadManifest(d); err != nil {
			return nil, nil, plan.ConfigErrorf("merge: %s: not a run directory: %v", d, err)
		}
		if a, _ := filepath.Abs(d); a == outAbs {
			return nil, nil, plan.ConfigErrorf("merge: -o %s is one of the runs merged", out)
		}
		if specs[i], err = treeHashes(filepath.Join(d, rundir.SpecsDir)); err != nil {
			return nil, nil, fmt.Errorf("merge: %s: %w", d, err)
		}
	}
	return ms, specs, nil
}

// addPart adds the manifest m of part d (cells renamed by ren) to merged:
// the part itself, its cells, passes, versions and options (those that
// differ from an earlier part's keep the first, with a warning; a path into
// the part's folder names the merged run outAbs's copy), warnings, launches
// and finish time. first is the first part, named in the warnings it
// returns.
func addPart(merged, m *rundir.Manifest, ren map[string]string, d, first, outAbs string) []string {
	var warns []string
	merged.MergedFrom = append(merged.MergedFrom, rundir.MergedPart{Run: rundir.NameOf(d), Shard: m.Shard, Command: m.Command, Created: m.Created, Resumed: m.Resumed, GPUUUID: m.GPU.UUID})
	merged.Cells = append(merged.Cells, mergedCells(m, ren)...)
	for _, p := range m.Passes {
		if !slices.Contains(merged.Passes, p) {
			merged.Passes = append(merged.Passes, p)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Versions)) {
		v := m.Versions[k]
		if have, ok := merged.Versions[k]; ok && have != v {
			warns = append(warns, fmt.Sprintf("version of %s differs: %q in %s, %q in %s (the first is recorded)", k, have, first, v, d))
			continue
		}
		merged.Versions[k] = v
	}
	abs, _ := filepath.Abs(d)
	for _, k := range slices.Sorted(maps.Keys(m.Options)) {
		// A path into the shard's folder (env.ROOFTOOL_PICKS) names
		// the merged run's copy.
		v := strings.ReplaceAll(m.Options[k], abs+string(filepath.Separator), outAbs+string(filepath.Separator))
		if k == "run_dir" || k == "tables" || k == rundir.OptionGPUIndex {
			continue
		}
		if have, ok := merged.Options[k]; ok && have != v {
			warns = append(warns, fmt.Sprintf("option %s differs: %q in %s, %q in %s (the first is recorded)", k, have, first, v, d))
			continue
		}
		merged.Options[k] = v
	}
	for _, w := range m.Warnings {
		if !slices.Contains(merged.Warnings, w) {
			merged.Warnings = append(merged.Warnings, w)
		}
	}
	merged.Launches = append(merged.Launches, m.Launches...) // each part's, in part order
	if m.Finished.After(merged.Finished) {
		merged.Finished = m.Finished
	}
	return warns
}
