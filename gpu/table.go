package gpu

import (
	"fmt"
	"io"
	"strings"

	"github.com/rooftool/rooftool/internal/tableout"
)

// Row is one GPU of the catalog in base units. Its JSON keys are the
// CSV's columns, in field order (tableout.Records).
type Row struct {
	Key      string            `json:"key"`
	Name     string            `json:"name"`
	Aliases  []string          `json:"aliases"` // names as nvidia-smi, ncu and nsys print them
	Arch     string            `json:"arch"`
	CC       string            `json:"cc"`
	SMs      int               `json:"sms"`
	BoostMHz float64           `json:"boost_mhz"` // 0: the datasheet states none
	MemoryGB float64           `json:"memory_gb"` // 1e9 byte
	DRAMBW   float64           `json:"dram_bw"`   // byte/s
	L2Bytes  int64             `json:"l2_bytes"`  // byte
	FP64     float64           `json:"fp64"`      // FLOP/s, non-tensor
	FP64TC   float64           `json:"fp64_tensor"`
	FP32     float64           `json:"fp32"`
	TF32     float64           `json:"tf32"` // tensor, dense
	BF16     float64           `json:"bf16"`
	FP16     float64           `json:"fp16"`
	FP8      float64           `json:"fp8"`
	INT8     float64           `json:"int8"` // OP/s
	Source   string            `json:"source"`
	Sources  map[string]string `json:"sources,omitempty"` // source of single figures, by catalog field
	Notes    string            `json:"notes,omitempty"`
}

// NewRow is g as a Row.
func NewRow(g Spec) Row {
	aliases := g.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	return Row{Key: g.Key, Name: g.Name, Aliases: aliases, Arch: g.Arch, CC: g.CC, SMs: g.SMs,
		BoostMHz: g.BoostMHz, MemoryGB: g.MemoryGB, DRAMBW: g.DRAMBW, L2Bytes: g.L2Bytes,
		FP64: g.FP64, FP64TC: g.FP64TC, FP32: g.FP32, TF32: g.TF32, BF16: g.BF16, FP16: g.FP16,
		FP8: g.FP8, INT8: g.INT8, Source: g.Source, Sources: g.Sources, Notes: g.Notes}
}

// gpuColumns are the rows of WriteDetail and, upper-cased, the
// columns of the catalog table: the figures scaled for reading.
var gpuColumns = []string{"key", "name", "arch", "cc", "sms", "boost_mhz", "dram_gbs", "l2_mib",
	"fp64_tflops", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops", "fp8_tflops", "int8_tops"}

// tableCells are the figures of gpuColumns, scaled.
func tableCells(g Spec) []string {
	t := func(v float64) string { return fmt.Sprintf("%g", round3(v/1e12)) }
	return []string{g.Key, g.Name, g.Arch, g.CC, fmt.Sprint(g.SMs), fmt.Sprintf("%g", g.BoostMHz),
		fmt.Sprintf("%g", round3(g.DRAMBW/1e9)), fmt.Sprintf("%g", round3(float64(g.L2Bytes)/(1<<20))),
		t(g.FP64), t(g.FP32), t(g.TF32), t(g.BF16), t(g.FP16), t(g.FP8), t(g.INT8)}
}

// round3 keeps four significant digits at most, so floating-point noise
// from unit conversion does not show.
func round3(v float64) float64 {
	s := fmt.Sprintf("%.4g", v)
	var out float64
	fmt.Sscan(s, &out)
	return out
}

// WriteTable writes the catalog table of specs (`rooftool gpus`). Its
// NAME column leaves out the leading words every name shares (the
// vendor's), said under the table: fitted to a terminal, a name is
// shortened in the middle, and what tells two GPUs of one model apart
// (SXM5, PCIe, NVL, 40GB) is at its end.
func WriteTable(w io.Writer, specs []Spec) error {
	t := tableout.Table{Header: []string{"KEY", "NAME", "ARCH", "CC", "SMS", "BOOST MHz", "DRAM GB/s", "L2 MiB",
		"FP64 TF", "FP32 TF", "TF32 TF", "BF16 TF", "FP16 TF", "FP8 TF", "INT8 TOPS"}}
	names := make([]string, len(specs))
	for i, g := range specs {
		names[i] = g.Name
	}
	prefix := sharedWords(names)
	for _, g := range specs {
		row := tableCells(g)
		row[1] = strings.TrimPrefix(row[1], prefix)
		t.Rows = append(t.Rows, row)
	}
	if err := t.WriteText(w, tableout.RightAligned); err != nil {
		return err
	}
	if prefix != "" {
		fmt.Fprintf(w, "\nEvery NAME begins %q, left out above.", strings.TrimSpace(prefix))
	}
	_, err := fmt.Fprintln(w, "\nTensor figures are dense (no 2:4 sparsity); 0 = no such path. `rooftool gpus NAME` shows each figure's source.")
	return err
}

// sharedWords is the run of leading words (each with the space after it)
// that every one of several names begins with and none is only; "" where
// they share none, or there are fewer than two names.
func sharedWords(names []string) string {
	if len(names) < 2 {
		return ""
	}
	prefix := ""
	for _, word := range strings.SplitAfter(names[0], " ") {
		next := prefix + word
		if !strings.HasSuffix(next, " ") {
			break
		}
		for _, n := range names {
			if !strings.HasPrefix(n, next) || n == next {
				return prefix
			}
		}
		prefix = next
	}
	return prefix
}

// WriteDetail writes one GPU in full (`rooftool gpus NAME`): each figure
// of gpuColumns with its source, its aliases, the entry's source and notes.
func WriteDetail(w io.Writer, g Spec) error {
	var t tableout.Table
	row := tableCells(g)
	for i, c := range gpuColumns {
		src := ""
		field := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(c, "_tflops"), "_tops"), "_gbs")
		if v, ok := g.Sources[c]; ok {
			src = v
		} else if v, ok := g.Sources[field]; ok {
			src = v
		}
		t.Rows = append(t.Rows, []string{c, row[i], src})
	}
	t.Rows = append(t.Rows, []string{"aliases", strings.Join(g.Aliases, "; "), ""})
	if err := t.WriteText(w, tableout.Columns); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nsource: %s\n", g.Source)
	if g.Notes != "" {
		fmt.Fprintf(w, "notes: %s\n", g.Notes)
	}
	return nil
}

// ListingJSONVersion is the "rooftool_gpus" field of Listing's JSON; it
// changes when a key is renamed or removed or a value changes meaning.
const ListingJSONVersion = 1

// Listing is the JSON output of `rooftool gpus --format json`: a row per
// GPU.
type Listing struct {
	Version int   `json:"rooftool_gpus"`
	GPUs    []Row `json:"gpus"`
}

// NewListing lists specs, a row each.
func NewListing(specs []Spec) Listing {
	rows := make([]Row, 0, len(specs))
	for _, g := range specs {
		rows = append(rows, NewRow(g))
	}
	return Listing{Version: ListingJSONVersion, GPUs: rows}
}
