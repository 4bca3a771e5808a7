package ingest

import (
	"testing"

	"github.com/rooftool/rooftool/internal/golden"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestSchemaDoc keeps SCHEMA.md equal to what schema.go documents. go test
// ./ingest -run TestSchemaDoc -update rewrites it.
func TestSchemaDoc(t *testing.T) {
	golden.Check(t, "SCHEMA.md", []byte(schemaMarkdown()))
}

func TestSchemaMetadata(t *testing.T) {
	for _, n := range TableNames {
		s := Schema(n)
		if s == nil {
			t.Fatalf("no schema for %s", n)
		}
		md := s.Metadata()
		if v, _ := md.GetValue(MetaSchemaVersion); v != "4" {
			t.Errorf("%s: %s = %q", n, MetaSchemaVersion, v)
		}
		if v, _ := md.GetValue(MetaTable); v != n {
			t.Errorf("%s: %s = %q", n, MetaTable, v)
		}
		for _, f := range s.Fields() {
			if d, _ := f.Metadata.GetValue(FieldMetaDescription); d == "" {
				t.Errorf("%s.%s has no description", n, f.Name)
			}
		}
	}
	ks := KernelsSchema()
	st := ks.Field(ks.FieldIndices("start_ns")[0])
	if st.Type.ID() != arrow.TIMESTAMP || !st.Nullable {
		t.Errorf("kernels.start_ns is %s nullable=%v", st.Type, st.Nullable)
	}
	du := ks.Field(ks.FieldIndices("duration_ns")[0])
	if u, _ := du.Metadata.GetValue(FieldMetaUnit); u != "ns" || du.Type.ID() != arrow.INT64 {
		t.Errorf("kernels.duration_ns is %s, unit %q", du.Type, u)
	}
}

// Every Nulls bit names a nullable column, and the builder's bit order
// matches the schema's column order.
func TestNullsColumns(t *testing.T) {
	kernel := map[Nulls]string{
		NullDevice: "device", NullContext: "context", NullStream: "stream", NullCorrelationID: "correlation_id",
		NullPID: "pid", NullTID: "tid", NullGridX: "grid_x", NullGridY: "grid_y", NullGridZ: "grid_z",
		NullBlockX: "block_x", NullBlockY: "block_y", NullBlockZ: "block_z", NullRegisters: "registers",
		NullStaticShared: "static_shared_bytes", NullDynShared: "dynamic_shared_bytes",
		NullStart: "start_ns", NullDuration: "duration_ns",
	}
	for bit := Nulls(1); bit <= NullDuration; bit <<= 1 {
		if _, ok := kernel[bit]; !ok {
			t.Errorf("Nulls bit %#x names no kernels column", bit)
		}
	}
	ks := KernelsSchema()
	for bit, name := range kernel {
		if f := ks.Field(ks.FieldIndices(name)[0]); !f.Nullable {
			t.Errorf("kernels.%s (Nulls %#x) is not nullable", name, bit)
		}
	}
	for j, bit := range kernelTailNulls {
		if got := ks.Field(18 + j).Name; got != kernel[bit] {
			t.Errorf("kernels field %d is %s, kernelTailNulls[%d] stands for %s", 18+j, got, j, kernel[bit])
		}
	}
	for j, name := range []string{"context", "stream", "correlation_id", "pid", "tid"} {
		if got := ks.Field(13 + j).Name; got != name {
			t.Errorf("kernels field %d is %s, appendKernelCall writes %s", 13+j, got, name)
		}
	}
	rs := RangesSchema()
	for _, name := range []string{"pid", "tid", "parent_id"} {
		if f := rs.Field(rs.FieldIndices(name)[0]); !f.Nullable {
			t.Errorf("ranges.%s is not nullable", name)
		}
	}
}

func TestFileVersion(t *testing.T) {
	md := func(kv ...string) arrow.Metadata {
		var k, v []string
		for i := 0; i < len(kv); i += 2 {
			k, v = append(k, kv[i]), append(v, kv[i+1])
		}
		return arrow.NewMetadata(k, v)
	}
	for _, c := range []struct {
		md   arrow.Metadata
		want int
		err  bool
	}{
		{md(), 1, false},
		{md("other", "x"), 1, false},
		{md(MetaSchemaVersion, "2", MetaTable, TableKernels), 2, false},
		{md(MetaSchemaVersion, "1"), 1, false},
		{md(MetaSchemaVersion, "3"), 3, false},
		{md(MetaSchemaVersion, "4"), 4, false},
		{md(MetaSchemaVersion, "5"), 0, true},
		{md(MetaSchemaVersion, "two"), 0, true},
		{md(MetaSchemaVersion, "2", MetaTable, TableRanges), 0, true},
	} {
		got, err := fileVersion(c.md, TableKernels)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("fileVersion(%v) = %d, %v; want %d, error %v", c.md, got, err, c.want, c.err)
		}
	}
}
