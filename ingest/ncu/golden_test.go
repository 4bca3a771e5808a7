package ncu

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/internal/golden"
)

// ncuDump writes the tables of one ingest as deterministic text: every
// kernel, gpu and meta row, and every metric row of the first maxKernels
// kernels; the metric rows of all kernels are summarised by their count and
// a SHA-256 of their lines.
func ncuDump(tb *ingest.Tables, maxKernels int64) string {
	var b strings.Builder
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, k := range tb.Kernels() {
		fmt.Fprintf(&b, "kernel %d corr=%d pass=%s dev=%d ctx=%d stream=%d pid=%d grid=%d,%d,%d block=%d,%d,%d regs=%d smem=%d+%d dur_ns=%d exp=%q var=%q shape=%q range=%q path=%q short=%q name=%q mangled=%q file=%s\n",
			k.ID, k.CorrelationID, k.Pass, k.Device, k.Context, k.Stream, k.PID, k.GridX, k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ,
			k.Registers, k.StaticSharedBytes, k.DynSharedBytes, k.DurationNs, k.Experiment, k.Variant, k.Shape, k.Range, k.RangePath, k.ShortName, k.Name, k.Mangled, k.File)
	}
	for _, g := range tb.GPUs() {
		fmt.Fprintf(&b, "gpu %d %q cc=%d.%d sms=%d mem=%d l2=%d sm_hz=%s mem_hz=%s bw=%s bus=%q file=%s\n",
			g.Device, g.Name, g.CCMajor, g.CCMinor, g.SMCount, g.MemoryBytes, g.L2Bytes, f(g.SMClockHz), f(g.MemClockHz), f(g.MemoryBandwidth), g.Bus, g.File)
	}
	for _, m := range tb.Metas() {
		fmt.Fprintf(&b, "meta %s=%q\n", m.Key, m.Value)
	}
	h := sha256.New()
	ms := tb.Metrics()
	for _, m := range ms {
		v := "null"
		if m.Valid {
			v = f(m.Value)
		}
		line := fmt.Sprintf("metric k=%d %q %q %s unit=%q text=%q\n", m.KernelID, m.Section, m.Name, v, m.Unit, m.Text)
		h.Write([]byte(line))
		if m.KernelID < maxKernels {
			b.WriteString(line)
		}
	}
	fmt.Fprintf(&b, "metrics %d sha256 %x\n", len(ms), h.Sum(nil))
	return b.String()
}

// TestNCUGolden pins the complete ingest of every real ncu CSV (the hand
// checks of the figures are in ncu_test.go). go test ./ingest/ncu -run
// TestNCUGolden -update rewrites testdata/*.golden.
func TestNCUGolden(t *testing.T) {
	files := []string{
		"ESMM-Research/metrics.csv",
		"llm-perf-opt/kernel_0001.ncu.details.csv",
		"gene-paper-artifacts-pop2020/dgdxy_time-dram_ncuroof-time-0.csv",
		"Roofline-Analysis/torch_sdpa_flash__gqa_bf16_b8_ctx32k_p64.ncu.csv",
	}
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			tb := ingesttest.Ingest(t, parseExport, realdata+rel, ingest.Options{})
			got := ncuDump(tb, 2)
			path := filepath.Join("testdata", strings.ReplaceAll(rel, "/", "__")+".golden")
			golden.Check(t, path, []byte(got))
		})
	}
}
