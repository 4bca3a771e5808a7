package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/internal/tableout"
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

func runGPUs(ctx context.Context, opts *GPUsOptions) error {
	if err := checkDataFormat("gpus", opts.Format); err != nil {
		return err
	}
	specs := gpu.Catalog()
	if opts.Name != "" {
		g, err := gpu.Find(opts.Name)
		if err != nil {
			return usageErrorf("gpus: %q: %v", opts.Name, err)
		}
		if opts.Format == "table" {
			return gpu.WriteDetail(opts.IO.Out, g)
		}
		specs = []gpu.Spec{g}
	}
	list := gpu.NewListing(specs)
	csv, err := tableout.Records(list.GPUs)
	if err != nil {
		return err
	}
	return writeData(opts.IO, opts.Format, tableout.Output{
		CSV:  csv,
		JSON: list,
		Text: func(w io.Writer) error { return gpu.WriteTable(w, specs) },
	})
}
