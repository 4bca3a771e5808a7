package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/testdata"
)

// costsNone is the --costs-from value that asks for no earlier run: the
// shards are then split by shape size.
const costsNone = "none"

// defaultCostsFrom picks the run whose pass seconds predict a plan where
// --costs-from is not given: the newest committed run (testdata/runs, by
// its manifest's created time) made on the GPU kind of gpuFlag (its
// catalog key: h100 and h200 differ); where the repository has none of
// that kind, the newest of another kind, unscaled. note says which and
// why; "" and a note where the repository holds no committed run (outside
// a checkout).
func defaultCostsFrom(gpuFlag string) (dir, note string) {
	runs, _ := testdata.RepoDir()
	if runs == "" {
		return "", "outside a rooftool clone there are no committed runs (testdata/runs) to predict from: shape sizes and default pass seconds; --costs-from RUN names a run directory to predict from"
	}
	want := ""
	if gpuFlag != "" {
		if g, err := gpu.Find(gpuFlag); err == nil {
			want = g.Key
		}
	}
	var same, any string
	var sameM, anyM *rundir.Manifest
	ents, _ := os.ReadDir(runs)
	for _, e := range ents {
		d := filepath.Join(runs, e.Name())
		m, err := rundir.ReadManifest(d)
		if !e.IsDir() || err != nil || len(m.Cells) == 0 {
			continue
		}
		if anyM == nil || m.Created.After(anyM.Created) {
			any, anyM = d, m
		}
		if want != "" && gpu.ShortName(m.GPU.Name) == want && (sameM == nil || m.Created.After(sameM.Created)) {
			same, sameM = d, m
		}
	}
	rel := func(d string) string {
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, d); err == nil {
				return r
			}
		}
		return d
	}
	switch {
	case same != "":
		return rel(same), fmt.Sprintf("the newest committed run on %s (%s)", want, sameM.GPU.Name)
	case any == "":
		return "", "no committed run (testdata/runs) holds a manifest"
	case want == "":
		return rel(any), fmt.Sprintf("the newest committed run (%s; no --gpu given)", anyM.GPU.Name)
	}
	return rel(any), fmt.Sprintf("no committed run on %s: the newest of another kind (%s), its seconds unscaled", want, anyM.GPU.Name)
}

// costsFrom resolves --costs-from: as given; "none" for no earlier run;
// not given, defaultCostsFrom's pick. note says where they came from.
func costsFrom(given []string, changed bool, gpuFlag string) (dirs []string, note string) {
	if changed {
		if len(given) == 1 && given[0] == costsNone {
			return nil, "--costs-from none"
		}
		return given, "--costs-from"
	}
	d, note := defaultCostsFrom(gpuFlag)
	if d == "" {
		return nil, note
	}
	return []string{d}, note
}
