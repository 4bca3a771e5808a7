package launch

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSMI(t *testing.T) {
	out := "NVIDIA H100 80GB HBM3, GPU-abc, 570.124.06, 1980 MHz, 2619 MHz, 1980 MHz, 2619 MHz, 81559 MiB\n" +
		"NVIDIA H200, GPU-def, 570.124.06, [N/A], 3201 MHz, 1980 MHz, 3201 MHz, 143771 MiB\n"
	gs, err := ParseSMI(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 {
		t.Fatalf("%d gpus", len(gs))
	}
	g := gs[0]
	if g.Name != "NVIDIA H100 80GB HBM3" || g.UUID != "GPU-abc" || g.Driver != "570.124.06" || g.SMClockMHz != 1980 || g.MaxMemClockMHz != 2619 || g.MemoryBytes != 81559<<20 {
		t.Errorf("gpu 0 = %+v", g)
	}
	if gs[1].SMClockMHz != 0 {
		t.Errorf("[N/A] clock read as %v", gs[1].SMClockMHz)
	}
	if _, err := ParseSMI("NVIDIA H100, GPU-abc\n"); err == nil || !strings.Contains(err.Error(), "2 fields, want 8") {
		t.Errorf("short line: err = %v", err)
	}
	if _, err := ParseSMI(""); err == nil {
		t.Errorf("empty output: no error")
	}
}

func TestDoctorParsers(t *testing.T) {
	ldd := `	linux-vdso.so.1 (0x00007ffd)
	libdw.so.1 => not found
	libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f)
	libelf.so.1 => not found`
	if got := LddMissing(ldd); !slices.Equal(got, []string{"libdw.so.1", "libelf.so.1"}) {
		t.Errorf("ldd missing = %q", got)
	}
	params := "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nEnableMSI: 1\n"
	if v := ParamValue(params, "RmProfilingAdminOnly"); v != "1" {
		t.Errorf("RmProfilingAdminOnly = %q", v)
	}
	if v := ParamValue(params, "Nope"); v != "" {
		t.Errorf("Nope = %q", v)
	}
}
