package nsys

// Kernel rows of an Nsight Systems export and the cell (experiment,
// variant, shape) each takes from its NVTX range.

import (
	"fmt"
	"strings"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest"
)

// kernelQuery builds the kernel SELECT from the columns the table has:
//
//	0 start, 1 end, 2 deviceId, 3 contextId, 4 streamId, 5 correlationId,
//	6 globalPid, 7 demangledName, 8 shortName, 9 mangledName, 10 gridX,
//	11 dynamicSharedMemory, 12 graphNodeId, 13 rowid, 14 gridY, 15 gridZ,
//	16 blockX, 17 blockY, 18 blockZ, 19 registersPerThread,
//	20 staticSharedMemory
//
// Columns are read as they are, a NULL (or a column the table lacks) as
// sqlNull: the driver fetches a row's values in one call, so an expression
// SQLite would evaluate per row (COALESCE, CASE) costs more than the value.
// The %s is scanSplit's rowid range.
func kernelQuery(c map[string]bool) string {
	col := func(name string) string { return colOr(c, "", name, "NULL") }
	return "SELECT " + strings.Join([]string{
		col("start"), col("end"), col("deviceId"), col("contextId"), col("streamId"), col("correlationId"), col("globalPid"),
		colOr(c, "", "demangledName", `"shortName"`), colOr(c, "", "shortName", `"demangledName"`), col("mangledName"),
		col("gridX"), col("dynamicSharedMemory"), col("graphNodeId"), "rowid",
		col("gridY"), col("gridZ"), col("blockX"), col("blockY"), col("blockZ"), col("registersPerThread"), col("staticSharedMemory"),
	}, ", ") + ` FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE %s ORDER BY rowid`
}

const kernelQueryCols = 21

// kernelRowidCol is the row id's column of kernelQuery.
const kernelRowidCol = 13

// kernelSizeCols are the launch sizes and counts of kernelQuery's columns
// 10, 11 and 14 to 20, which may not be negative.
var kernelSizeCols = map[int]string{10: "gridX", 11: "dynamicSharedMemory", 14: "gridY", 15: "gridZ", 16: "blockX", 17: "blockY",
	18: "blockZ", 19: "registersPerThread", 20: "staticSharedMemory"}

// negKernelCol is the error for a negative launch size or count in a
// kernel row.
func negKernelCol(path string, rowid int64, col string, v int64) error {
	return ingest.BadInput(path, 0, tabKernel, "row id %d: column %q: negative value %d: a launch size or count cannot be negative", rowid, col, v)
}

// nameColName and shortColName name the columns kernelQuery reads the name
// and short name from.
func nameColName(c map[string]bool) string {
	if c["demangledName"] {
		return "demangledName"
	}
	return "shortName"
}

func shortColName(c map[string]bool) string {
	if c["shortName"] {
		return "shortName"
	}
	return "demangledName"
}

// kernelAbsent returns the Nulls of the kernel columns the table lacks
// (kernelQuery reads them as 0).
func kernelAbsent(c map[string]bool) ingest.Nulls {
	var n ingest.Nulls
	for _, x := range []struct {
		col string
		bit ingest.Nulls
	}{
		{"deviceId", ingest.NullDevice}, {"contextId", ingest.NullContext}, {"streamId", ingest.NullStream}, {"correlationId", ingest.NullCorrelationID},
		{"gridX", ingest.NullGridX}, {"gridY", ingest.NullGridY}, {"gridZ", ingest.NullGridZ},
		{"blockX", ingest.NullBlockX}, {"blockY", ingest.NullBlockY}, {"blockZ", ingest.NullBlockZ},
		{"registersPerThread", ingest.NullRegisters}, {"staticSharedMemory", ingest.NullStaticShared}, {"dynamicSharedMemory", ingest.NullDynShared},
	} {
		if !c[x.col] {
			n |= x.bit
		}
	}
	return n
}

func (p *nsysParser) kernels(c map[string]bool) error {
	q := kernelQuery(c)
	absent := kernelAbsent(c)
	// Cell of each range path, computed once per path.
	type cell struct {
		key       cellkey.Key
		rng, path string
	}
	cells := make([]*cell, len(p.nodes))
	cellOf := func(n int32) *cell {
		if cells[n] == nil {
			r := &p.nodes[n]
			cells[n] = &cell{cellkey.New(ingest.CellFromPath(p.comps(n), p.in.Options)), r.text, r.path}
		}
		return cells[n]
	}
	none := &cell{key: cellkey.New(ingest.CellFromPath(nil, p.in.Options))}
	// setCall fills the call-dependent fields of k; it returns the cell key.
	setCall := func(k *ingest.Kernel, gpid int64) (int64, error) {
		// Without a launching call the thread is unknown; so is the
		// process without a globalPid.
		k.PID, k.TID = gtidPID(gpid), 0
		k.Null = k.Null&^ingest.NullPID | ingest.NullTID
		if gpid == 0 {
			k.Null |= ingest.NullPID
		}
		cl, ckey := none, int64(0)
		pid := int64(0)
		if p.byPID {
			pid = gtidPID(gpid)
		}
		if k.CorrelationID >= 0 {
			call, ok, err := p.findCall(pid, k.CorrelationID)
			if err != nil {
				return 0, err
			}
			if ok {
				k.PID, k.TID = gtidPID(call.GTID), gtidTID(call.GTID)
				k.Null &^= ingest.NullPID | ingest.NullTID
				if call.Rng >= 0 {
					cl, ckey = cellOf(call.Node), int64(call.Node)+1
				}
			}
		}
		k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath = cl.key.Experiment, cl.key.Variant, cl.key.Shape, cl.rng, cl.path
		return ckey, nil
	}
	app := p.b.KernelAppender()
	defer app.Flush()
	var k ingest.Kernel
	var keys ingest.KernelKeys
	var gn, rows int64
	var order streamOrder
	err := p.db.scanSplit(tabKernel, q, kernelQueryCols, sqlNull, func(v []int64) error {
		or := func(i int, null int64) int64 {
			if v[i] == sqlNull {
				return null
			}
			return v[i]
		}
		start := or(0, 0)
		end, corr, gpid := or(1, start), or(5, -1), or(6, 0)
		nameID, shortID, mangledID := or(7, -1), or(8, -1), or(9, -1)
		rowid := v[kernelRowidCol]
		if rows++; rows%4096 == 0 {
			if err := p.b.Err(); err != nil {
				return err
			}
		}
		if err := kernelSpanErr(p.in.Path, rowid, v[0], v[1]); err != nil {
			return err
		}
		order.add(v[2], v[3], v[4], v[0])
		for _, j := range [...]int{10, 11, 14, 15, 16, 17, 18, 19, 20} {
			if v[j] = or(j, 0); v[j] < 0 {
				return negKernelCol(p.in.Path, rowid, kernelSizeCols[j], v[j])
			}
		}
		name, err := p.kernelString(nameID, nameColName(c), rowid)
		if err != nil {
			return err
		}
		short, err := p.kernelString(shortID, shortColName(c), rowid)
		if err != nil {
			return err
		}
		mangled, err := p.kernelString(mangledID, "mangledName", rowid)
		if err != nil {
			return err
		}
		k = ingest.Kernel{Source: ingest.SourceNsys, File: p.file, Pass: ingest.PassTimeline,
			Name: name, ShortName: short, Mangled: mangled,
			Device: int32(or(2, 0)), Context: or(3, 0), Stream: or(4, 0), CorrelationID: corr,
			GridX: int32(v[10]), GridY: int32(v[14]), GridZ: int32(v[15]),
			BlockX: int32(v[16]), BlockY: int32(v[17]), BlockZ: int32(v[18]),
			Registers: int32(v[19]), StaticSharedBytes: v[20], DynSharedBytes: v[11],
			StartNs: start, DurationNs: end - start, Null: absent}
		if corr < 0 {
			k.Null |= ingest.NullCorrelationID
		}
		if g := or(12, 0); g != 0 {
			gn = g
			k.GraphNodeID = &gn
		}
		ckey, err := setCall(&k, gpid)
		if err != nil {
			return err
		}
		keys = ingest.KernelKeys{Name: nameID, ShortName: shortID, Mangled: mangledID,
			Experiment: ckey, Variant: ckey, Shape: ckey, Range: ckey, RangePath: ckey}
		app.Add(&k, &keys)
		return nil
	})
	if err == nil && rows == 0 {
		// As a missing kernel table is (kernelTable): nothing to ingest.
		return ingest.NoKernels(p.in.Path, tabKernel, "the table has no rows: the export holds no kernels (nothing ran on the GPU while nsys traced CUDA)")
	}
	if err != nil || !order.suspect() {
		return err
	}
	n, err := repeatedRows(p.db, tabKernel, q, kernelQueryCols, kernelRowidCol)
	if err == nil && n > 0 {
		p.b.AddMeta(ingest.Meta{Source: ingest.SourceNsys, File: p.file, Key: "warning", Value: fmt.Sprintf(
			"%d rows of %s repeat another row exactly (start, end, device, context, stream, correlation id, process, names): a kernel written twice is counted twice (nsys stats counts them too)",
			n, tabKernel)})
	}
	return err
}
