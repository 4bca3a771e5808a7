package main

import (
	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/detect"
	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/stats"
)

// statsKernelsOnly reports whether stats can summarise the inputs from
// their kernel tables alone (stats.NsysSummaryGroups), as nsys stats -r
// cuda_gpu_kern_sum does: every input an nsys SQLite export, no other
// --source, and either the flat report without range options or exports
// without NVTX ranges. Anything it cannot tell leaves the answer to the
// full ingest, which reports it.
func statsKernelsOnly(inputs []string, source string, so stats.Options) bool {
	if source != "" && source != ingest.SourceNsys {
		return false
	}
	for _, p := range inputs {
		if f, err := detect.Format(p); err != nil || f != detect.FormatNsysDB {
			return false
		}
	}
	if so.Flat && so.Range == "" && !so.RangedOnly {
		return true
	}
	for _, p := range inputs {
		if ranged, err := nsys.HasRanges(p); err != nil || ranged {
			return false
		}
	}
	return true
}
