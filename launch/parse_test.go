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

func TestSplitNCU(t *testing.T) {
	nv := `"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"`
	stack := func(v, s string) string {
		return `"7 ""<default domain>:swiglu:none"" ""<default domain>:` + v + `:none"" ""<default domain>:` + s + `:none"""`
	}
	data := strings.Join([]string{
		`==PROF== Connected to process 1`,
		`"ID","Kernel Name",` + nv + `,"gpu__time_duration.sum"`,
		`"","","","ns"`,
		`"0","k1",` + stack("unfused", "M=512,N=1") + `,"10"`,
		`"1","k2",` + stack("unfused-graph", "M=512,N=1") + `,"11"`,
		`"2","k3",` + stack("unfused", "M=5120,N=1") + `,"12"`,
		`"3","k4","","13"`,
		``,
	}, "\n")
	cells := []string{"unfused/M=512,N=1", "unfused-graph/M=512,N=1", "unfused/M=5120,N=1"}
	s, err := SplitNCU([]byte(data), "swiglu", cells)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasNVTX || len(s.Header) != 2 || len(s.Rows) != 4 {
		t.Fatalf("split: nvtx %v, %d header lines, %d rows", s.HasNVTX, len(s.Header), len(s.Rows))
	}
	var got []string
	for _, r := range s.Rows {
		got = append(got, r.Name+"="+r.Cell)
	}
	want := []string{"k1=unfused/M=512,N=1", "k2=unfused-graph/M=512,N=1", "k3=unfused/M=5120,N=1", "k4="}
	if !slices.Equal(got, want) {
		t.Errorf("rows = %q, want %q", got, want)
	}
	one := string(s.CellCSV("unfused-graph/M=512,N=1"))
	if strings.Count(one, "\n") != 3 || !strings.Contains(one, `"1","k2"`) || strings.Contains(one, "==PROF==") {
		t.Errorf("cell CSV:\n%s", one)
	}
	if _, err := SplitNCU([]byte("==ERROR== nothing\n"), "swiglu", cells); err == nil {
		t.Errorf("no header: no error")
	}
}

func TestReplayPasses(t *testing.T) {
	log := `==PROF== Connected to process 12 (/usr/bin/python3.12)
==PROF== Profiling "ampere_bf16_s16816gemm" - 0: 0%....50%....100% - 9 passes
==PROF== Profiling "silu_kernel" - 1: 0%....50%....100% - 1 pass
==PROF== Profiling "range" - 2: 0%....50%....100% - 12 passes`
	got := ReplayPasses(log)
	if got[0] != 9 || got[1] != 1 || got[2] != 12 || len(got) != 3 {
		t.Errorf("passes = %v", got)
	}
	// app-range replay (ncu 2025.3.1 on an H100): one line per pass
	app := `==PROF== Connected to process 798 (/usr/bin/python3.12)
==PROF== Profiling "range" - 0: Application replay pass 1
==PROF== Profiling "range" - 0: Application replay pass 2
==PROF== Disconnected from process 798`
	if got := ReplayPasses(app); got[0] != 2 || len(got) != 1 {
		t.Errorf("app-range passes = %v", got)
	}
}

func TestExpandMetrics(t *testing.T) {
	avail := []string{"dram__bytes_read", "sm__ops_path_tensor_src_fp8_dst_fp16", "sm__ops_path_tensor_src_fp8_dst_fp32"}
	out, dropped := ExpandMetrics([]string{"dram__bytes_read.sum", "lts__t_bytes.sum", "sm__ops_path_tensor_src_fp8*.sum", "launch__grid_size"}, avail)
	if want := []string{"dram__bytes_read.sum", "sm__ops_path_tensor_src_fp8_dst_fp16.sum", "sm__ops_path_tensor_src_fp8_dst_fp32.sum", "launch__grid_size"}; !slices.Equal(out, want) {
		t.Errorf("out = %q, want %q", out, want)
	}
	if !slices.Equal(dropped, []string{"lts__t_bytes.sum"}) {
		t.Errorf("dropped = %q", dropped)
	}
	// Without a list only the globs go.
	out, dropped = ExpandMetrics([]string{"lts__t_bytes.sum", "x__y*.sum"}, nil)
	if !slices.Equal(out, []string{"lts__t_bytes.sum"}) || !slices.Equal(dropped, []string{"x__y*.sum"}) {
		t.Errorf("no list: out %q dropped %q", out, dropped)
	}
	q := ParseQueryMetrics([]byte("Device NVIDIA H200 (GH100)\n----\nMetric Name   Description\ndram__bytes_read   # of bytes\nsm__cycles_elapsed  # cycles\n"))
	if !slices.Equal(q, []string{"dram__bytes_read", "sm__cycles_elapsed"}) {
		t.Errorf("query = %q", q)
	}
	if got := MissingMetrics("==ERROR== Failed to find metric sm__foo.sum\n==ERROR== Failed to find metric regex:bar__x\n"); !slices.Equal(got, []string{"sm__foo.sum", "bar__x"}) {
		t.Errorf("missing = %q", got)
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
