package ingest

// Kernel rows of an Nsight Systems export and the cell (experiment,
// variant, shape) each takes from its NVTX range.

import (
	"fmt"
	"strconv"
	"strings"
)

// kernelQuery builds the kernel SELECT from the columns the table has:
//
//	0 start, 1 end, 2 deviceId, 3 contextId, 4 streamId, 5 correlationId,
//	6 globalPid, 7 demangledName, 8 shortName, 9 mangledName, 10 gridX,
//	11 dynamicSharedMemory, 12 graphNodeId, 13 rowid,
//	14 gridY | gridZ<<16 | blockX<<32 | blockY<<43 | blockZ<<54 (or -1),
//	15 registersPerThread | staticSharedMemory<<16 (or -1)
//
// Small columns are packed by SQLite: each value read through the Go driver
// costs more than SQLite spends on the whole row. A packed value is -1 when
// a field does not fit; then unpackedQuery reads that row again.
func kernelQuery(c map[string]bool) (string, func(string) string) {
	ic := func(name string) string { return "COALESCE(" + colOr(c, "", name, "0") + ",0)" }
	nameCol := colOr(c, "", "demangledName", `"shortName"`)
	shortCol := colOr(c, "", "shortName", `"demangledName"`)
	gy, gz, bx, by, bz := ic("gridY"), ic("gridZ"), ic("blockX"), ic("blockY"), ic("blockZ")
	regs, ss := ic("registersPerThread"), ic("staticSharedMemory")
	in := func(x string, max int64) string { return fmt.Sprintf("%s BETWEEN 0 AND %d", x, max) }
	p1 := "CASE WHEN " + strings.Join([]string{in(gy, 65535), in(gz, 65535), in(bx, 2047), in(by, 2047), in(bz, 511)}, " AND ") +
		" THEN " + gy + " | (" + gz + " << 16) | (" + bx + " << 32) | (" + by + " << 43) | (" + bz + " << 54) ELSE -1 END"
	p2 := "CASE WHEN " + in(regs, 65535) + " AND " + in(ss, 1<<40) + " THEN " + regs + " | (" + ss + " << 16) ELSE -1 END"
	q := "SELECT " + strings.Join([]string{
		`COALESCE("start",0)`, `COALESCE("end","start",0)`, ic("deviceId"), ic("contextId"), ic("streamId"),
		"COALESCE(" + colOr(c, "", "correlationId", "-1") + ",-1)",
		"COALESCE(" + colOr(c, "", "globalPid", "0") + ",0)",
		"COALESCE(" + nameCol + ",-1)", "COALESCE(" + shortCol + ",-1)",
		"COALESCE(" + colOr(c, "", "mangledName", "-1") + ",-1)",
		ic("gridX"), ic("dynamicSharedMemory"), ic("graphNodeId"), "rowid", p1, p2,
	}, ", ") + ` FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid`
	unpacked := func(rowid string) string {
		return "SELECT " + strings.Join([]string{gy, gz, bx, by, bz, regs, ss}, ", ") + " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = " + rowid
	}
	return q, unpacked
}

const kernelQueryCols = 16

// unpackedCols are the columns unpackedQuery reads, in order.
var unpackedCols = [...]string{"gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory"}

// negKernelCol is the error for a negative launch size or count in a
// kernel row.
func negKernelCol(path string, rowid int64, col string, v int64) error {
	return badInput(path, 0, tabKernel, "row id %d: column %q: negative value %d: a launch size or count cannot be negative", rowid, col, v)
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
func kernelAbsent(c map[string]bool) Nulls {
	var n Nulls
	for _, x := range []struct {
		col string
		bit Nulls
	}{
		{"deviceId", NullDevice}, {"contextId", NullContext}, {"streamId", NullStream}, {"correlationId", NullCorrelationID},
		{"gridX", NullGridX}, {"gridY", NullGridY}, {"gridZ", NullGridZ},
		{"blockX", NullBlockX}, {"blockY", NullBlockY}, {"blockZ", NullBlockZ},
		{"registersPerThread", NullRegisters}, {"staticSharedMemory", NullStaticShared}, {"dynamicSharedMemory", NullDynShared},
	} {
		if !c[x.col] {
			n |= x.bit
		}
	}
	return n
}

func (p *nsysParser) kernels(c map[string]bool) error {
	q, unpacked := kernelQuery(c)
	absent := kernelAbsent(c)
	// Cell of each range, computed once per range.
	type cell struct{ exp, variant, shape, rng, path string }
	cells := make([]*cell, len(p.ranges))
	cellOf := func(ri int32) *cell {
		if cells[ri] == nil {
			r := &p.ranges[ri]
			e, v, s := cellFromPath(r.comps, p.in.Options)
			cells[ri] = &cell{e, v, s, r.text, strings.Join(r.comps, "/")}
		}
		return cells[ri]
	}
	none := &cell{}
	none.exp, none.variant, none.shape = cellFromPath(nil, p.in.Options)
	// setCall fills the call-dependent fields of k; it returns the cell key.
	setCall := func(k *Kernel, gpid int64) (int64, error) {
		// Without a launching call the thread is unknown; so is the
		// process without a globalPid.
		k.PID, k.TID = gtidPID(gpid), 0
		k.Null = k.Null&^NullPID | NullTID
		if gpid == 0 {
			k.Null |= NullPID
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
				k.PID, k.TID = gtidPID(call.gtid), gtidTID(call.gtid)
				k.Null &^= NullPID | NullTID
				if call.rng >= 0 {
					cl, ckey = cellOf(call.rng), int64(call.rng)+1
				}
			}
		}
		k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath = cl.exp, cl.variant, cl.shape, cl.rng, cl.path
		return ckey, nil
	}
	app := newKernelAppender(p.b)
	defer app.flush()
	var k Kernel
	var keys kernelKeys
	var gn, rows int64
	return p.db.scanInts(tabKernel, q, kernelQueryCols, func(v []int64) error {
		start, end, corr, gpid := v[0], v[1], v[5], v[6]
		nameID, shortID, mangledID := v[7], v[8], v[9]
		rowid := v[13]
		if rows++; rows%4096 == 0 {
			if err := p.b.Err(); err != nil {
				return err
			}
		}
		if end < start {
			return badInput(p.in.Path, 0, tabKernel, "row id %d: column \"end\" = %d is before \"start\" = %d: a negative duration", rowid, end, start)
		}
		if v[10] < 0 {
			return negKernelCol(p.in.Path, rowid, "gridX", v[10])
		}
		if v[11] < 0 {
			return negKernelCol(p.in.Path, rowid, "dynamicSharedMemory", v[11])
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
		k = Kernel{Source: SourceNsys, File: p.file, Pass: PassTimeline,
			Name: name, ShortName: short, Mangled: mangled,
			Device: int32(v[2]), Context: v[3], Stream: v[4], CorrelationID: corr,
			GridX: int32(v[10]), DynSharedBytes: v[11],
			StartNs: start, DurationNs: end - start, Null: absent}
		if corr < 0 {
			k.Null |= NullCorrelationID
		}
		if v[12] != 0 {
			gn = v[12]
			k.GraphNodeID = &gn
		}
		p1, p2 := v[14], v[15]
		if p1 < 0 || p2 < 0 {
			var u [7]int64
			if err := p.db.db.QueryRow(unpacked(strconv.FormatInt(v[13], 10))).Scan(&u[0], &u[1], &u[2], &u[3], &u[4], &u[5], &u[6]); err != nil {
				return p.db.wrap(tabKernel, err)
			}
			for j, col := range unpackedCols {
				if u[j] < 0 {
					return negKernelCol(p.in.Path, rowid, col, u[j])
				}
			}
			k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ = int32(u[0]), int32(u[1]), int32(u[2]), int32(u[3]), int32(u[4])
			k.Registers, k.StaticSharedBytes = int32(u[5]), u[6]
		} else {
			k.GridY, k.GridZ = int32(p1&0xFFFF), int32(p1>>16&0xFFFF)
			k.BlockX, k.BlockY, k.BlockZ = int32(p1>>32&0x7FF), int32(p1>>43&0x7FF), int32(p1>>54&0x1FF)
			k.Registers, k.StaticSharedBytes = int32(p2&0xFFFF), p2>>16
		}
		ckey, err := setCall(&k, gpid)
		if err != nil {
			return err
		}
		keys = kernelKeys{kdName: nameID, kdShortName: shortID, kdMangled: mangledID,
			kdExperiment: ckey, kdVariant: ckey, kdShape: ckey, kdRange: ckey, kdRangePath: ckey}
		app.add(&k, &keys)
		return nil
	})
}

// cellFromPath derives experiment, variant and shape from a range path:
// when it has three or more components and the last looks like a shape
// (k=v,...), the last three are experiment/variant/shape. Options override.
func cellFromPath(comps []string, o Options) (exp, variant, shape string) {
	if n := len(comps); n >= 3 && looksLikeShape(comps[n-1]) {
		exp, variant, shape = comps[n-3], comps[n-2], comps[n-1]
	}
	return or(o.Experiment, exp), or(o.Variant, variant), or(o.Shape, shape)
}

// looksLikeShape reports whether s is a canonical shape string:
// comma-separated key=value pairs with identifier keys, e.g. "B=16,T=512".
func looksLikeShape(s string) bool {
	if s == "" {
		return false
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" || v == "" {
			return false
		}
		for i, r := range k {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}
