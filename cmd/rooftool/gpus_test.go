package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/gpu"
)

func runOut(t *testing.T, want int, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != want {
		t.Fatalf("rooftool %q: exit %d, want %d: %s", args, code, want, e.String())
	}
	return o.String()
}

// TestGPUsFormats checks that the JSON of `rooftool gpus` is versioned and
// in base units, and that its CSV has the same keys as columns, in the
// same order, with the same values.
func TestGPUsFormats(t *testing.T) {
	var doc struct {
		Version *int             `json:"rooftool_gpus"`
		GPUs    []map[string]any `json:"gpus"`
	}
	raw := runOut(t, exitOK, "gpus", "--format", "json")
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("gpus --format json: %v\n%s", err, raw)
	}
	if doc.Version == nil || *doc.Version != gpu.ListingJSONVersion {
		t.Fatalf("rooftool_gpus = %v, want %d", doc.Version, gpu.ListingJSONVersion)
	}
	specs := gpu.Catalog()
	if len(doc.GPUs) != len(specs) {
		t.Fatalf("%d GPUs in JSON, %d in the catalog", len(doc.GPUs), len(specs))
	}
	h, ok := gpu.Lookup("h100-sxm")
	if !ok {
		t.Fatal("h100-sxm not in the catalog")
	}
	for _, g := range doc.GPUs {
		if g["key"] != h.Key {
			continue
		}
		if g["dram_bw"].(json.Number).String() != "3350000000000" || g["l2_bytes"].(json.Number).String() != "52428800" {
			t.Errorf("h100-sxm dram_bw %v, l2_bytes %v: want byte/s and bytes", g["dram_bw"], g["l2_bytes"])
		}
	}

	recs, err := csv.NewReader(strings.NewReader(runOut(t, exitOK, "gpus", "--format", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	hdr := recs[0]
	want := []string{"key", "name", "aliases", "arch", "cc", "sms", "boost_mhz", "memory_gb", "dram_bw", "l2_bytes",
		"fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "source", "sources", "notes"}
	if strings.Join(hdr, ",") != strings.Join(want, ",") {
		t.Errorf("CSV header %q, want %q", hdr, want)
	}
	// The JSON keys of a GPU, in order, are the CSV header (h100-sxm has
	// sources and notes, which are omitted where empty).
	var list struct {
		GPUs []json.RawMessage `json:"gpus"`
	}
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		t.Fatal(err)
	}
	if keys := objectKeys(t, list.GPUs[0]); strings.Join(keys, ",") != strings.Join(hdr, ",") {
		t.Errorf("JSON keys %q, CSV header %q", keys, hdr)
	}
	if len(recs)-1 != len(doc.GPUs) {
		t.Fatalf("%d CSV rows, %d JSON GPUs", len(recs)-1, len(doc.GPUs))
	}
	for i, rec := range recs[1:] {
		g := doc.GPUs[i]
		for j, k := range hdr {
			v, ok := g[k]
			var want string
			switch x := v.(type) {
			case nil:
			case string:
				want = x
			case json.Number:
				want = x.String()
			default:
				b, _ := json.Marshal(x)
				want = string(b)
			}
			if !ok {
				want = ""
			}
			if rec[j] != want {
				t.Errorf("%s: CSV %s = %q, JSON %q", g["key"], k, rec[j], want)
			}
		}
	}

	// One GPU: the same shape with one entry; the table shows its sources.
	var one gpu.Listing
	if err := json.Unmarshal([]byte(runOut(t, exitOK, "gpus", "--format", "json", "NVIDIA H100 80GB HBM3")), &one); err != nil {
		t.Fatal(err)
	}
	if one.Version != gpu.ListingJSONVersion || len(one.GPUs) != 1 || one.GPUs[0].Key != "h100-sxm" {
		t.Errorf("gpus --format json h100 = %+v", one)
	}
	csvOut := runOut(t, exitOK, "gpus", "--format", "csv", "h100")
	if !strings.Contains(csvOut, ",Hopper,9.0,132,1980,80,3350000000000,52428800,34000000000000,67000000000000,67000000000000,494500000000000,989500000000000,989500000000000,1979000000000000,1979000000000000,") {
		t.Errorf("gpus --format csv h100: not in base units:\n%s", csvOut)
	}
	// The table scales the figures; with NAME it gives each one's source.
	if out := runOut(t, exitOK, "gpus"); !strings.Contains(out, "DRAM GB/s") || !strings.Contains(out, "3350") || !strings.Contains(out, "989.5") {
		t.Errorf("gpus table:\n%s", out)
	}
	if out := runOut(t, exitOK, "gpus", "Tesla T4"); !strings.Contains(out, "t4-tensor-core-datasheet") || !strings.Contains(out, "report.sqlite") {
		t.Errorf("gpus \"Tesla T4\": detail lacks sources:\n%s", out)
	}
	runOut(t, exitBadArgs, "gpus", "--format", "yaml")
	runOut(t, exitBadArgs, "gpus", "no-such-gpu")
}

// objectKeys lists the top-level keys of a JSON object in order.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
			expectKey = depth == 1 && v == '{'
			if depth == 1 && (v == '}' || v == ']') {
				expectKey = true
			}
			continue
		case string:
			if depth == 1 && expectKey {
				keys = append(keys, v)
				expectKey = false
				continue
			}
		}
		if depth == 1 {
			expectKey = true
		}
	}
}

// TestGPUDidYouMean: every command that takes a GPU name answers a name the
// catalog lacks with exit 2 and the nearest catalog keys (gpu.Find), and
// never says the catalog lists it.
func TestGPUDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // keys the message must name
	}{
		{[]string{"gpus", "a100"}, []string{"a100-sxm-40", "a100-pcie-80"}},
		{[]string{"gpus", "4090"}, []string{"rtx-4090"}},
		{[]string{"roofline", "--gpu", "A4500", "../../testdata/realdata/ESMM-Research/metrics.csv", "-o", "x"}, []string{"rtx-a4500"}},
		{[]string{"project", "2026-11-23-h100-140505", "--gpu", "h300"}, []string{"h200", "h100-sxm"}},
		{[]string{"profile", "--gpu", "a100"}, []string{"a100-sxm-80"}},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), tc.args, &IO{Out: &o, Err: &e})
		msg := e.String()
		if code != exitBadArgs || !strings.Contains(msg, "did you mean") || strings.Contains(msg, "lists it") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with did you mean", tc.args, code, msg)
		}
		for _, k := range tc.want {
			if !strings.Contains(msg, k+" (") {
				t.Errorf("%q: stderr %q does not suggest %s", tc.args, msg, k)
			}
		}
	}
}
