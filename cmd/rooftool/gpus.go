package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/rooftool/rooftool/gpu"
	"github.com/spf13/cobra"
)

// GPUsOptions are the flags of `rooftool gpus`.
type GPUsOptions struct {
	IO     *IO
	Name   string // one GPU to show in full; "" lists the catalog
	Format string // table | csv | json
}

func newGPUsCmd(io *IO) *cobra.Command {
	opts := &GPUsOptions{IO: io}
	c := &cobra.Command{
		Use:   "gpus [NAME]",
		Short: "List the GPU catalog: datasheet peaks, bandwidth, L2 and their sources",
		Long: `Gpus lists the GPUs rooftool knows with their datasheet figures: SMs, boost
clock, DRAM bandwidth, L2 size and dense peak FLOP/s for fp64, fp32 and the
tf32, bf16, fp16, fp8 and int8 tensor paths (0: the GPU has no such path).
The roofline uses them where an export does not state its own peaks.

With NAME (as nvidia-smi, ncu or nsys print it, e.g. "NVIDIA H100 80GB HBM3",
or a catalog key such as h100-sxm) it shows that GPU with the source of every
figure.

--format table (default) scales the figures for reading (GB/s, MiB, TFLOP/s).
csv and json carry the same fields under the same names in base units (byte/s,
byte, FLOP/s; int8 in OP/s): json is {"rooftool_gpus": 1, "gpus": [...]}, csv
has one column per key, lists and objects written as JSON (JSON.md).`,
		Example: `  rooftool gpus
  rooftool gpus --format csv
  rooftool gpus --format json h100 | jq '.gpus[0].dram_bw'
  rooftool gpus "Tesla T4"`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeGPUArg,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			return runGPUs(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	mustRegisterCompletion(c, "format", completeOneOf(dataFormats...))
	return c
}

// gpusJSONVersion is the "rooftool_gpus" field of the JSON output; it
// changes when a key is renamed or removed or a value changes meaning.
const gpusJSONVersion = 1

// gpusJSON is the JSON output of `rooftool gpus --format json`.
type gpusJSON struct {
	Version int      `json:"rooftool_gpus"`
	GPUs    []gpuRow `json:"gpus"`
}

// gpuRow is one GPU of the catalog in base units. Its JSON keys are the
// CSV's columns, in field order (writeRowsCSV).
type gpuRow struct {
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

func newGPURow(g gpu.Spec) gpuRow {
	aliases := g.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	return gpuRow{Key: g.Key, Name: g.Name, Aliases: aliases, Arch: g.Arch, CC: g.CC, SMs: g.SMs,
		BoostMHz: g.BoostMHz, MemoryGB: g.MemoryGB, DRAMBW: g.DRAMBW, L2Bytes: g.L2Bytes,
		FP64: g.FP64, FP64TC: g.FP64TC, FP32: g.FP32, TF32: g.TF32, BF16: g.BF16, FP16: g.FP16,
		FP8: g.FP8, INT8: g.INT8, Source: g.Source, Sources: g.Sources, Notes: g.Notes}
}

func runGPUs(ctx context.Context, opts *GPUsOptions) error {
	if err := checkDataFormat("gpus", opts.Format); err != nil {
		return err
	}
	specs := gpu.Catalog()
	if opts.Name != "" {
		g, ok := gpu.Lookup(opts.Name)
		if !ok {
			var keys []string
			for _, s := range specs {
				keys = append(keys, s.Key)
			}
			return usageErrorf("gpus: %q is not in the catalog (keys: %s)", opts.Name, strings.Join(keys, ", "))
		}
		if opts.Format == "table" {
			return writeGPUDetail(opts.IO.Out, g)
		}
		specs = []gpu.Spec{g}
	}
	rows := make([]gpuRow, 0, len(specs))
	for _, g := range specs {
		rows = append(rows, newGPURow(g))
	}
	switch opts.Format {
	case "json":
		return writeJSON(opts.IO.Out, gpusJSON{Version: gpusJSONVersion, GPUs: rows})
	case "csv":
		return writeRowsCSV(opts.IO.Out, rows)
	}
	return writeGPUsTable(opts.IO.Out, specs)
}

// dataFormats are the --format values of every command that prints data.
var dataFormats = []string{"table", "csv", "json"}

// checkDataFormat rejects a --format outside dataFormats.
func checkDataFormat(cmd, format string) error {
	for _, f := range dataFormats {
		if format == f {
			return nil
		}
	}
	return usageErrorf("%s: --format %q: want table, csv or json", cmd, format)
}

// writeJSON writes v as JSON indented by two spaces, with <, > and &
// as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeRowsCSV writes a slice of structs as CSV: one column per exported
// field named by its JSON key, in field order, so that CSV and JSON share
// names and units. A string is written as is; any other value as JSON
// writes it (numbers, booleans, lists and objects); an empty value of an
// omitempty field, or a nil list or object, as "".
func writeRowsCSV(w io.Writer, rows any) error {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Struct {
		return fmt.Errorf("writeRowsCSV: want a slice of structs, got %T", rows)
	}
	type col struct {
		index     int
		name      string
		omitEmpty bool
	}
	var cols []col
	t := v.Type().Elem()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		cols = append(cols, col{i, name, strings.Contains(opt, "omitempty")})
	}
	cw := csv.NewWriter(w)
	hdr := make([]string, len(cols))
	for i, c := range cols {
		hdr[i] = c.name
	}
	cw.Write(hdr)
	for r := 0; r < v.Len(); r++ {
		rec := make([]string, len(cols))
		for i, c := range cols {
			fv := v.Index(r).Field(c.index)
			switch {
			case c.omitEmpty && fv.IsZero():
			case fv.Kind() == reflect.String:
				rec[i] = fv.String()
			case (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map || fv.Kind() == reflect.Pointer) && fv.IsNil():
			default:
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(fv.Interface()); err != nil {
					return fmt.Errorf("csv column %s: %w", c.name, err)
				}
				rec[i] = strings.TrimSuffix(b.String(), "\n")
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// gpuColumns are the rows of `rooftool gpus NAME` and, upper-cased, the
// columns of the catalog table: the figures scaled for reading.
var gpuColumns = []string{"key", "name", "arch", "cc", "sms", "boost_mhz", "dram_gbs", "l2_mib",
	"fp64_tflops", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops", "fp8_tflops", "int8_tops"}

// gpuTableCells are the figures of gpuColumns, scaled.
func gpuTableCells(g gpu.Spec) []string {
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

func writeGPUsTable(w io.Writer, specs []gpu.Spec) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"KEY", "NAME", "ARCH", "CC", "SMS", "BOOST MHz", "DRAM GB/s", "L2 MiB",
		"FP64 TF", "FP32 TF", "TF32 TF", "BF16 TF", "FP16 TF", "FP8 TF", "INT8 TOPS"}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, g := range specs {
		fmt.Fprintln(tw, strings.Join(gpuTableCells(g), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nTensor figures are dense (no 2:4 sparsity); 0 = no such path. `rooftool gpus NAME` shows each figure's source.")
	return err
}

func writeGPUDetail(w io.Writer, g gpu.Spec) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := gpuTableCells(g)
	for i, c := range gpuColumns {
		src := ""
		field := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(c, "_tflops"), "_tops"), "_gbs")
		if v, ok := g.Sources[c]; ok {
			src = v
		} else if v, ok := g.Sources[field]; ok {
			src = v
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c, row[i], src)
	}
	fmt.Fprintf(tw, "aliases\t%s\t\n", strings.Join(g.Aliases, "; "))
	tw.Flush()
	fmt.Fprintf(w, "\nsource: %s\n", g.Source)
	if g.Notes != "" {
		fmt.Fprintf(w, "notes: %s\n", g.Notes)
	}
	return nil
}
