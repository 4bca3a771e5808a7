package ingest

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/golden"
)

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

const nsysRealdata = "../testdata/realdata/"

func copyFile(t testing.TB, src, dst string, n int64) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if n >= 0 && n < int64(len(b)) {
		b = b[:n]
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// kernelLine and rangeLine render rows for golden files.
func kernelLine(k Kernel) string {
	g := "null"
	if k.GraphNodeID != nil {
		g = fmt.Sprint(*k.GraphNodeID)
	}
	return fmt.Sprintf("%d corr=%d pid=%d tid=%d %s/%s mangled=%q range=%q path=%q cell=%q/%q/%q grid=%dx%dx%d block=%dx%dx%d regs=%d smem=%d/%d t=%d+%d graph=%s",
		k.ID, k.CorrelationID, k.PID, k.TID, k.ShortName, k.Name, k.Mangled, k.Range, k.RangePath, k.Experiment, k.Variant, k.Shape,
		k.GridX, k.GridY, k.GridZ, k.BlockX, k.BlockY, k.BlockZ, k.Registers, k.StaticSharedBytes, k.DynSharedBytes, k.StartNs, k.DurationNs, g)
}

func rangeLine(r Range) string {
	p := "null"
	if r.ParentID != nil {
		p = fmt.Sprint(*r.ParentID)
	}
	return fmt.Sprintf("%d %s domain=%q text=%q path=%q depth=%d parent=%s pid=%d tid=%d t=[%d,%d]",
		r.ID, r.Kind, r.Domain, r.Text, r.Path, r.Depth, p, r.PID, r.TID, r.StartNs, r.EndNs)
}

func dumpTables(tb *Tables) string {
	var b strings.Builder
	for _, k := range tb.Kernels() {
		b.WriteString("kernel " + kernelLine(k) + "\n")
	}
	for _, r := range tb.Ranges() {
		b.WriteString("range " + rangeLine(r) + "\n")
	}
	for _, g := range tb.GPUs() {
		fmt.Fprintf(&b, "gpu %+v\n", g)
	}
	var m []string
	for _, x := range tb.Metas() {
		m = append(m, "meta "+x.Key+"="+x.Value)
	}
	sort.Strings(m)
	b.WriteString(strings.Join(m, "\n") + "\n")
	return b.String()
}
