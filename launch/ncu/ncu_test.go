package ncu

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestSplitCSV(t *testing.T) {
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
	s, err := SplitCSV([]byte(data), "swiglu", cells)
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
	if _, err := SplitCSV([]byte("==ERROR== nothing\n"), "swiglu", cells); err == nil {
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

func TestSumMetrics(t *testing.T) {
	const metricTime, metricL2 = "gpu__time_duration.sum", "lts__t_bytes.sum"
	const head = `==PROF== Connected to process 1
"ID","Kernel Name","gpu__time_duration.sum","lts__t_bytes.sum"
`
	for _, tc := range []struct {
		name, csv string
		want      map[string]float64
		err       string
	}{
		{"base units", head + `"","","ns","byte"
"0","a","1,000","2,000,000"
"1","b","500","1,048,576"
`, map[string]float64{metricTime: 1500, metricL2: 3048576}, ""},
		{"scaled units", head + `"","","usecond","Mbyte"
"0","range","2.5","13.18"
`, map[string]float64{metricTime: 2500, metricL2: 13.18e6}, ""},
		{"no units row", head + `"0","a","7","9"
`, map[string]float64{metricTime: 7, metricL2: 9}, ""},
		{"n/a left out", head + `"","","ns","byte"
"0","a","n/a","5"
`, map[string]float64{metricL2: 5}, ""},
		{"missing column", `"ID","Kernel Name","gpu__time_duration.sum"
"0","a","3"
`, map[string]float64{metricTime: 3}, ""},
		{"no header", "==ERROR== nothing\n", nil, "no CSV header"},
		{"unknown unit", head + `"","","cycle","byte"
`, nil, `gpu__time_duration.sum: unit "cycle"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := SumMetrics([]byte(tc.csv), metricTime, metricL2)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if math.Abs(got[k]-v) > 1e-6*v {
					t.Errorf("%s = %g, want %g", k, got[k], v)
				}
			}
		})
	}
}
