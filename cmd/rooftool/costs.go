package main

import "github.com/rooftool/rooftool/pipeline"

// costsNone is the --costs-from value that asks for no earlier run: the
// shards are then split by shape size.
const costsNone = "none"

// costsFrom resolves --costs-from: as given; "none" for no earlier run;
// not given, pipeline.DefaultCostsRun's pick. note says where they came from.
func costsFrom(given []string, changed bool, gpuFlag string) (dirs []string, note string) {
	if changed {
		if len(given) == 1 && given[0] == costsNone {
			return nil, "--costs-from none"
		}
		return given, "--costs-from"
	}
	d, note := pipeline.DefaultCostsRun(gpuFlag)
	if d == "" {
		return nil, note
	}
	return []string{d}, note
}
