package ingest

// Memory copies and memsets as the ranges table holds them (kinds memcpy
// and memset, from Nsight Systems): each range's text says what it was and
// how many bytes it moved, "memcpy DtoD 536870912 B", "memset 1048576 B".
// ncu's kernel pass does not see them (a cudaMemcpy is no kernel), but they
// move DRAM bytes inside a cell's NVTX range, which the range pass must
// count: CellCopies sums them by cell as DRAM traffic.

import (
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
)

// copyKinds names CUPTI's copy kinds (ENUM_CUDA_MEMCPY_OPER) and how many
// times each moves its bytes through the device's DRAM: device to device
// reads and writes them there (2); host to device or device to host
// touches the device once (1); a peer copy touches this device once, its
// peer the other side; host to host never (0). An unknown kind counts 0:
// the floor it feeds stays a floor.
var copyKinds = map[int64]struct {
	name string
	dram int
}{
	0: {"unknown", 0}, 1: {"HtoD", 1}, 2: {"DtoH", 1}, 3: {"HtoA", 1}, 4: {"AtoH", 1},
	5: {"AtoA", 2}, 6: {"AtoD", 2}, 7: {"DtoA", 2}, 8: {"DtoD", 2}, 9: {"HtoH", 0},
	10: {"PtoP", 1}, 11: {"UVM-HtoD", 1}, 12: {"UVM-DtoH", 1}, 13: {"UVM-DtoD", 2},
}

// CopyKindName is the name a memcpy range's text gives CUPTI's copy kind
// copyKind (ENUM_CUDA_MEMCPY_OPER): "HtoD", "DtoD", ...; "unknown" for a
// kind not known.
func CopyKindName(copyKind int64) string {
	if k, ok := copyKinds[copyKind]; ok {
		return k.name
	}
	return "unknown"
}

// copyDRAMFactor is how many times a copy named kind ("DtoD", "memset")
// moves its bytes through DRAM (copyKinds; a memset writes them once).
func copyDRAMFactor(kind string) int {
	if kind == RangeMemset {
		return 1
	}
	for _, k := range copyKinds {
		if k.name == kind {
			return k.dram
		}
	}
	return 0
}

// Copy is one memcpy or memset range read back from its text.
type Copy struct {
	Kind  string // "DtoD", "HtoD", ... for a memcpy; "memset"
	Bytes int64  // bytes copied or set
}

// DRAMBytes are the bytes the copy moves through the device's DRAM:
// Bytes times 2 for a copy within the device (read and write), 1 for a
// copy to or from the host and for a memset, 0 host to host or unknown.
func (c Copy) DRAMBytes() int64 { return c.Bytes * int64(copyDRAMFactor(c.Kind)) }

// ParseCopy reads a memcpy or memset range's text ("memcpy DtoD 536870912
// B", "memset 1048576 B"); false for any other range.
func ParseCopy(r Range) (Copy, bool) {
	f := strings.Fields(r.Text)
	switch {
	case r.Kind == RangeMemcpy && len(f) == 4 && f[0] == "memcpy" && f[3] == "B":
		n, err := strconv.ParseInt(f[2], 10, 64)
		return Copy{Kind: f[1], Bytes: n}, err == nil
	case r.Kind == RangeMemset && len(f) == 3 && f[0] == "memset" && f[2] == "B":
		n, err := strconv.ParseInt(f[1], 10, 64)
		return Copy{Kind: RangeMemset, Bytes: n}, err == nil
	}
	return Copy{}, false
}

// CopyTotals are the copies and memsets nsys traced inside one cell's
// NVTX range.
type CopyTotals struct {
	Count     int   // copies and memsets
	Bytes     int64 // bytes they copied or set
	DRAMBytes int64 // bytes they moved through DRAM (Copy.DRAMBytes)
	DtoDBytes int64 // bytes of copies within the device
}

// CellCopies sums the memcpy and memset ranges of t by cell. A copy's
// cell is its parent range's, read from its path as a kernel's is
// (experiment/variant/shape, the shape a k=v list); the experiment is that
// of the nsys kernels of the same file, variant and shape where there are
// any (an ingest that named the experiment), else the path's.
func CellCopies(t *Tables) map[cellkey.Key]CopyTotals {
	type vs struct{ file, variant, shape string }
	var ranges []Range
	for _, r := range t.Ranges() {
		if r.Source == SourceNsys && (r.Kind == RangeMemcpy || r.Kind == RangeMemset) {
			ranges = append(ranges, r)
		}
	}
	if len(ranges) == 0 {
		return nil
	}
	exps := map[vs]string{}
	for _, k := range t.Kernels() {
		if k.Source == SourceNsys && k.Variant != "" {
			exps[vs{k.File, k.Variant, k.Shape}] = k.Experiment
		}
	}
	out := map[cellkey.Key]CopyTotals{}
	for _, r := range ranges {
		c, ok := ParseCopy(r)
		if !ok || r.ParentID == nil {
			continue
		}
		comps := strings.Split(r.Path, "/")
		exp, v, s := CellFromPath(comps[:len(comps)-1], Options{})
		if v == "" || s == "" {
			continue
		}
		if e, ok := exps[vs{r.File, v, s}]; ok {
			exp = e
		}
		key := cellkey.New(exp, v, s)
		tot := out[key]
		tot.Count++
		tot.Bytes += c.Bytes
		tot.DRAMBytes += c.DRAMBytes()
		if c.Kind == "DtoD" {
			tot.DtoDBytes += c.Bytes
		}
		out[key] = tot
	}
	return out
}
