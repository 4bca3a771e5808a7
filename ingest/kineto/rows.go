package kineto

// Kineto traces: one event's own fields as a kernels or gpus row, and the
// meta rows a trace's header gives (kineto.go reads the events).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// kinetoKernel converts a kernel event's own fields.
func kinetoKernel(file string, k *kKernel) (ingest.Kernel, error) {
	a := &k.args
	if d := k.ev.end - k.ev.start; d < 0 || d > ingest.MaxKernelNs {
		return ingest.Kernel{}, fmt.Errorf("kernel event %q at ts %d ns: dur %d ns is more than 2^62 ns (146 years): not a kernel's duration", k.ev.name, k.ev.start, d)
	}
	row := ingest.Kernel{Source: ingest.SourceKineto, File: file, Pass: ingest.PassTimeline,
		Name: k.ev.name, ShortName: ingest.ShortName(k.ev.name),
		StartNs: k.ev.start, DurationNs: k.ev.end - k.ev.start,
		// The launching call (attribution) states pid and tid; shared
		// memory is one figure, kept in static_shared_bytes.
		Null: ingest.NullPID | ingest.NullTID | ingest.NullDynShared}
	if k.hasCr {
		row.CorrelationID = k.corr
	} else {
		row.Null |= ingest.NullCorrelationID
	}
	dev, ok, err1 := optInt(a.Device)
	if err1 == nil && !ok {
		dev = numOr(k.ev.pid, &row.Null, ingest.NullDevice)
	}
	ctx, ok, err2 := optInt(a.Context)
	if !ok {
		row.Null |= ingest.NullContext
	}
	st, ok, err3 := optInt(a.Stream)
	if err3 == nil && !ok {
		st = numOr(k.ev.tid, &row.Null, ingest.NullStream)
	}
	regs, ok, err4 := optInt(a.Registers)
	if !ok {
		row.Null |= ingest.NullRegisters
	}
	sh, ok, err5 := optInt(a.Shared)
	if !ok {
		row.Null |= ingest.NullStaticShared
	}
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return row, fmt.Errorf("kernel %q args: %v", k.ev.name, err)
	}
	if dev < math.MinInt32 || dev > math.MaxInt32 || regs < 0 || regs > math.MaxInt32 {
		return row, fmt.Errorf("kernel %q args: device %d or registers %d out of range", k.ev.name, dev, regs)
	}
	row.Device, row.Context, row.Stream, row.Registers = int32(dev), ctx, st, int32(regs)
	row.StaticSharedBytes = sh // Kineto prints static + dynamic shared memory as one number
	dims := func(d []json.Number, key string) ([3]int32, error) {
		out := [3]int32{}
		if len(d) > 3 {
			return out, fmt.Errorf("kernel %q: args.%s has %d entries, expected 3", k.ev.name, key, len(d))
		}
		for j := range d {
			v, err := d[j].Int64()
			if err != nil || v < 0 || v > math.MaxInt32 {
				return out, fmt.Errorf("kernel %q: args.%s[%d] is %q, expected a dimension", k.ev.name, key, j, d[j])
			}
			out[j] = int32(v)
		}
		return out, nil
	}
	g, err := dims(a.Grid, "grid")
	if err != nil {
		return row, err
	}
	bl, err := dims(a.Block, "block")
	if err != nil {
		return row, err
	}
	row.GridX, row.GridY, row.GridZ = g[0], g[1], g[2]
	row.BlockX, row.BlockY, row.BlockZ = bl[0], bl[1], bl[2]
	for j := len(a.Grid); j < 3; j++ { // dimensions args.grid does not state
		row.Null |= ingest.NullGridX << j
	}
	for j := len(a.Block); j < 3; j++ {
		row.Null |= ingest.NullBlockX << j
	}
	return row, nil
}

func metaKeys(m []ingest.Meta) string {
	if len(m) == 0 {
		return "none"
	}
	var k []string
	for _, x := range m {
		k = append(k, strconv.Quote(x.Key))
	}
	if len(k) > 8 {
		k = append(k[:8], "...")
	}
	return strings.Join(k, ", ")
}

// kinetoGPU maps one deviceProperties entry to a gpus row.
func kinetoGPU(file string, p map[string]any) ingest.GPU {
	num := func(k string) float64 {
		switch v := p[k].(type) {
		case json.Number:
			f, _ := v.Float64()
			return f
		}
		return 0
	}
	name, _ := p["name"].(string)
	g := ingest.GPU{Source: ingest.SourceKineto, File: file, Device: int32(num("id")), Name: name,
		CCMajor: int32(num("computeMajor")), CCMinor: int32(num("computeMinor")), SMCount: int32(num("numSms")),
		MemoryBytes: int64(num("totalGlobalMem")), L2Bytes: int64(num("l2CacheSize")),
		SMClockHz: num("clockRate") * 1000, MemClockHz: num("memoryClockRate") * 1000}
	if bw := num("memoryBusWidth"); bw > 0 && g.MemClockHz > 0 {
		g.MemoryBandwidth = 2 * g.MemClockHz * bw / 8 // DDR: two transfers a clock
	}
	if s, ok := p["pciBusID"].(string); ok {
		g.Bus = s
	}
	return g
}
