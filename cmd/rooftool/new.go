package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/kernels/scaffold"
	"github.com/rooftool/rooftool/spec"
)

// NewOptions are the arguments and flags of `rooftool new`.
type NewOptions struct {
	IO   *IO
	Name string // the experiment's name, also its folder's
	Dir  string // parent folder; "" : the current directory
}

func newNewCmd(io *IO) *cobra.Command {
	opts := &NewOptions{IO: io}
	c := &cobra.Command{
		Use:   "new NAME [-o DIR]",
		Short: "Scaffold an experiment of your own: DIR/NAME/ with spec.yaml, claims.yaml, variants.py",
		Long: `New writes DIR/NAME/ (DIR: the current directory unless -o) with a worked
experiment to edit: a GEMM whose epilogue fuses bias + GELU (one Triton kernel)
against cuBLAS GEMM + eager bias add + eager GELU, and torch.compile as a
reference. The files teach every field: spec.yaml (variants, roles, shapes,
tolerance), claims.yaml (metrics, operators, thresholds, theory formulas over
the shape variables, claims that cite your own document with source: and line:)
and variants.py (make_inputs, reference, VARIANTS). The contract is in
kernels/README.md, "Bring your own experiment".

Run it with rooftool's own runner, from anywhere:

  rooftool profile --gpu h100 --experiments DIR/NAME

A folder that exists and is not empty is refused (exit 2).`,
		Example: `  rooftool new bias_gelu
  rooftool new bias_gelu -o ~/experiments
  rooftool profile --gpu h100 --experiments ~/experiments/bias_gelu`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runNew(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.Dir, "output", "o", "", "folder to create NAME/ in (default: the current directory)")
	mustRegisterCompletion(c, "output", completeDirs)
	return c
}

func runNew(_ context.Context, opts *NewOptions) error {
	if err := scaffold.ValidName(opts.Name); err != nil {
		return usageErrorf("new: %v", err)
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	target, written, err := scaffold.Write(dir, opts.Name)
	if errors.Is(err, scaffold.ErrExists) {
		return usageErrorf("new: %v: pick another NAME or -o", err)
	}
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	// The scaffold must load as profile --experiments will load it.
	if _, err := spec.LoadDir(target); err != nil {
		return fmt.Errorf("new: the scaffold does not validate: %w", err)
	}
	for _, p := range written {
		fmt.Fprintf(opts.IO.Out, "created %s\n", p)
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		abs = target
	}
	fmt.Fprintf(opts.IO.Out, "\nnext: edit the three files (kernels/README.md, \"Bring your own experiment\"), then\n  rooftool profile --gpu GPU --experiments %s\n", abs)
	return nil
}
