package reports

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/pipeline"
)

// TestRunInfoMergedFromWithoutFiles: a merged run's report names its parts
// but not the hashes of their exports (merged_from[].files), which stay in
// the manifest; the manifest keeps them.
func TestRunInfoMergedFromWithoutFiles(t *testing.T) {
	m := &rundir.Manifest{MergedFrom: []rundir.MergedPart{{Run: "r.gpu-0", Shard: "1/2",
		Files: map[string]string{"raw/ncu/e/part-1.csv": "ab"}}}}
	ri := runInfo(Input{Result: pipeline.Result{Manifest: m}})
	if len(ri.MergedFrom) != 1 || ri.MergedFrom[0].Run != "r.gpu-0" || ri.MergedFrom[0].Files != nil {
		t.Fatalf("report's merged_from = %+v", ri.MergedFrom)
	}
	data, _ := json.Marshal(ri)
	if strings.Contains(string(data), "part-1.csv") {
		t.Errorf("report.json names a part's file: %s", data)
	}
	if len(m.MergedFrom[0].Files) != 1 {
		t.Errorf("the manifest lost its parts' files")
	}
}
