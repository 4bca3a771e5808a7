package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/roofline"
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
figure.`,
		Example: `  rooftool gpus
  rooftool gpus --format csv
  rooftool gpus "Tesla T4"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			return runGPUs(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, csv or json")
	return c
}

func runGPUs(ctx context.Context, opts *GPUsOptions) error {
	switch opts.Format {
	case "table", "csv", "json":
	default:
		return usageErrorf("gpus: --format %q: want table, csv or json", opts.Format)
	}
	specs := roofline.Catalog()
	if opts.Name != "" {
		g, ok := roofline.Lookup(opts.Name)
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
		specs = []roofline.GPUSpec{g}
	}
	switch opts.Format {
	case "json":
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(specs)
	case "csv":
		return writeGPUsCSV(opts.IO.Out, specs)
	}
	return writeGPUsTable(opts.IO.Out, specs)
}

var gpuColumns = []string{"key", "name", "arch", "cc", "sms", "boost_mhz", "dram_gbs", "l2_mib",
	"fp64_tflops", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops", "fp8_tflops", "int8_tops"}

func gpuRow(g roofline.GPUSpec) []string {
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

func writeGPUsCSV(w io.Writer, specs []roofline.GPUSpec) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string{}, gpuColumns...), "source"))
	for _, g := range specs {
		cw.Write(append(gpuRow(g), g.Source))
	}
	cw.Flush()
	return cw.Error()
}

func writeGPUsTable(w io.Writer, specs []roofline.GPUSpec) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"KEY", "NAME", "ARCH", "CC", "SMS", "BOOST MHz", "DRAM GB/s", "L2 MiB",
		"FP64 TF", "FP32 TF", "TF32 TF", "BF16 TF", "FP16 TF", "FP8 TF", "INT8 TOPS"}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, g := range specs {
		fmt.Fprintln(tw, strings.Join(gpuRow(g), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nTensor figures are dense (no 2:4 sparsity); 0 = no such path. `rooftool gpus NAME` shows each figure's source.")
	return err
}

func writeGPUDetail(w io.Writer, g roofline.GPUSpec) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := gpuRow(g)
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
