// Package rundir owns the run directory, the artefact every stage of the
// pipeline shares: the profile runner (launch) writes it, ingest
// fills its tables, analysis and reports read it. It holds the layout, the
// manifest, the snapshot of the specs and claims a run was
// made with, atomic writes, and Open, which reads a run from a folder or
// from an fs.FS (an embedded committed run) without copying it anywhere.
//
//	runs/<date>-<gpu>-<id>/
//	  manifest.json
//	  specs/<exp>/spec.yaml, claims.yaml   what the run was made and is judged with
//	  ceilings.json                        measured roofs (optional)
//	  raw/check/<exp>/<variant>/<shape>.check.json
//	  raw/timing/<exp>/<variant>/<shape>.json
//	  raw/ncu/<exp>/...                    ncu kernel pass CSV(s)
//	  raw/ncu-range/<exp>/...              ncu range pass CSV(s)
//	  raw/nsys/<exp>/...                   nsys SQLite export(s)
//	  tables/*.parquet
//	  report.md report.json plots/
//
// A manifest names each raw export as it was written (raw/ncu/.../x.csv,
// raw/nsys/.../part-1.sqlite). A committed run (testdata/runs) keeps them
// gzipped beside that name, x.csv.gz, and the manifest unchanged: whoever
// opens a manifest's file reads <name>.gz where <name> is absent
// (runtables.Inputs in launch/runtables for `profile --ingest-only`; merge follows a
// renamed .gz too), and ingest tells a gzipped ncu CSV or nsys SQLite by
// its gzip magic and names its rows after the file as it was before
// compression, so that tables ingested from either are the same. What a
// report reads (manifest.json, specs/, tables/, raw/check, raw/timing,
// ceilings.json) is never compressed.
//
// It sits in ingest because a run directory is what ingest reads; it
// imports nothing of the pipeline above ingest.
package rundir

// Names of the files and folders of a run directory.
const (
	ManifestFile = "manifest.json"
	CeilingsFile = "ceilings.json"
	TablesDir    = "tables"
	SpecsDir     = "specs"
	RawDir       = "raw"
	CheckDir     = "raw/check"
	TimingDir    = "raw/timing"
)

// RawPassDir is the folder under raw/ that holds a pass's exports.
var RawPassDir = map[string]string{
	PassCheck:  "raw/check",
	PassTiming: "raw/timing",
	PassNCU:    "raw/ncu",
	PassRange:  "raw/ncu-range",
	PassNsys:   "raw/nsys",
}
