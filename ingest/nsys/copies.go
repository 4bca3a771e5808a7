package nsys

// Memory copies and memsets of an Nsight Systems export. ncu's kernel
// pass does not see them (a cudaMemcpy is no kernel), but they move DRAM
// bytes inside a cell's NVTX range, which the range pass must count. Each
// becomes a ranges row (kind memcpy or memset) under the NVTX range of its
// launching runtime call, attributed as a kernel is (findCall); its text
// says what it was and how many bytes it moved: "memcpy DtoD 536870912 B",
// "memset 1048576 B" (ingest's copies.go reads them back: CellCopies sums
// them by cell as DRAM traffic).

import (
	"fmt"

	"github.com/rooftool/rooftool/ingest"
)

const (
	tabMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY"
	tabMemset = "CUPTI_ACTIVITY_KIND_MEMSET"
)

// copies adds a memcpy or memset range per row of the export's memcpy and
// memset tables.
func (p *nsysParser) copies() error {
	for _, t := range []string{tabMemcpy, tabMemset} {
		if !p.db.has(t) {
			continue
		}
		c, err := p.db.columns(t)
		if err != nil {
			return err
		}
		if !c["start"] || !c["end"] || !c["bytes"] {
			continue
		}
		kind := "-1"
		if t == tabMemcpy {
			kind = "COALESCE(" + colOr(c, "", "copyKind", "0") + ", 0)"
		}
		q := `SELECT start, COALESCE(end, start), COALESCE(` + colOr(c, "", "correlationId", "-1") + `, -1), COALESCE(` +
			colOr(c, "", "globalPid", "0") + `, 0), COALESCE(bytes, 0), ` + kind + `, rowid FROM ` + t + ` ORDER BY rowid`
		err = p.db.scanInts(t, q, 7, func(v []int64) error {
			if v[1] < v[0] {
				return ingest.BadInput(p.in.Path, 0, t, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", v[6], v[1], v[0])
			}
			if v[4] < 0 {
				return ingest.BadInput(p.in.Path, 0, t, "row id %d: column \"bytes\" = %d: a negative size", v[6], v[4])
			}
			r := ingest.Range{Source: ingest.SourceNsys, File: p.file, Kind: ingest.RangeMemset, Text: fmt.Sprintf("memset %d B", v[4]),
				PID: gtidPID(v[3]), StartNs: v[0], EndNs: v[1], Null: ingest.NullTID}
			if t == tabMemcpy {
				r.Kind, r.Text = ingest.RangeMemcpy, fmt.Sprintf("memcpy %s %d B", ingest.CopyKindName(v[5]), v[4])
			}
			r.Path = r.Text
			if err := p.underCall(&r, v[3], v[2]); err != nil {
				return err
			}
			p.b.AddRange(r)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
