package main

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/testdata"
)

// Shell completion of flag values and arguments. Cobra's default
// `rooftool completion bash|zsh|fish|powershell` command prints the
// script; the script calls the hidden `rooftool __complete ARGS...`, which
// runs the functions registered here. Each returns the candidates that
// start with what was typed (ignoring case), each with a description where
// one helps, and tells the shell not to fall back to file names unless
// files are what the argument takes.

// mustRegisterCompletion registers fn for the flag name of c. A flag that
// does not exist is a bug of the command's construction, so it panics
// (every command is built by the tests).
func mustRegisterCompletion(c *cobra.Command, name string, fn cobra.CompletionFunc) {
	if err := c.RegisterFlagCompletionFunc(name, fn); err != nil {
		panic("rooftool " + c.Name() + ": completion of --" + name + ": " + err.Error())
	}
}

// hasPrefixFold reports whether s starts with prefix, ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// completeOneOf completes a flag that takes one of values.
func completeOneOf(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if hasPrefixFold(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeListOf completes a comma-separated list of values (a
// StringSlice flag such as report's --files): the values typed before the
// last comma stay, the last one is completed among those not yet given.
func completeListOf(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		head, last := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			head, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := map[string]bool{}
		for _, v := range strings.Split(head, ",") {
			given[strings.ToLower(strings.TrimSpace(v))] = true
		}
		var out []cobra.Completion
		for _, v := range values {
			if !given[v] && hasPrefixFold(v, last) {
				out = append(out, head+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeDirs completes a flag or argument that names a directory.
func completeDirs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// gpuCompletions are the catalog keys that start with what was typed,
// each described by the GPU's full name ("h200\tNVIDIA H200 SXM 141GB").
// Keys only: they hold no spaces, so the shell inserts one as a single
// word, and one key per GPU keeps the list short. --gpu still accepts
// every name and alias gpu.Lookup knows.
func gpuCompletions(toComplete string) []cobra.Completion {
	var out []cobra.Completion
	for _, g := range gpu.Catalog() {
		if hasPrefixFold(g.Key, toComplete) {
			out = append(out, cobra.CompletionWithDesc(g.Key, g.Name))
		}
	}
	return out
}

// completeGPU completes --gpu.
func completeGPU(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return gpuCompletions(toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeGPUArg completes the NAME argument of `rooftool gpus`.
func completeGPUArg(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return gpuCompletions(toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeExperiments completes --experiment with the experiments of
// kernels/ (described by their titles).
func completeExperiments(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	exps, err := spec.Load()
	if err != nil {
		cobra.CompErrorln(err.Error())
		return nil, cobra.ShellCompDirectiveError
	}
	var out []cobra.Completion
	for _, e := range exps {
		if hasPrefixFold(e.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(e.Name, e.Title))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeVariants completes --variant with the variants of the
// experiments given with --experiment, or of every experiment; each is
// described by the experiments that have it.
func completeVariants(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	exps, err := spec.Load()
	if err != nil {
		cobra.CompErrorln(err.Error())
		return nil, cobra.ShellCompDirectiveError
	}
	only := map[string]bool{}
	if names, err := c.Flags().GetStringArray("experiment"); err == nil {
		for _, n := range names {
			only[n] = true
		}
	}
	in := map[string][]string{} // variant -> experiments
	for _, e := range exps {
		if len(only) > 0 && !only[e.Name] {
			continue
		}
		for _, v := range e.Variants {
			if hasPrefixFold(v.Name, toComplete) {
				in[v.Name] = append(in[v.Name], e.Name)
			}
		}
	}
	var out []cobra.Completion
	for v, es := range in {
		out = append(out, cobra.CompletionWithDesc(v, strings.Join(es, ", ")))
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRunArgs completes up to n run arguments (report's RUNDIR, diff's
// RUN_A RUN_B): the runs committed under testdata/runs that start with what
// was typed; where none does, or what was typed is a path, directories.
func completeRunArgs(n int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if strings.ContainsAny(toComplete, `/\`) || strings.HasPrefix(toComplete, ".") || strings.HasPrefix(toComplete, "~") {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
		var out []cobra.Completion
		for _, r := range testdata.Runs() {
			if hasPrefixFold(r, toComplete) {
				out = append(out, cobra.CompletionWithDesc(r, "committed run"))
			}
		}
		if len(out) == 0 {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
