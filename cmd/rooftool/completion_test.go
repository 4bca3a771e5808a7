package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/spec"
	"github.com/rooftool/rooftool/testdata"
)

// complete runs `rooftool __complete ARGS...` in-process, as the shell
// scripts do, and returns the candidates (descriptions cut off) and the
// directive.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(context.Background(), append([]string{cobra.ShellCompRequestCmd}, args...), &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, code, e.String())
	}
	lines := strings.Split(strings.TrimRight(o.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, ":") {
		t.Fatalf("__complete %q: no directive line in %q", args, o.String())
	}
	d, err := strconv.Atoi(last[1:])
	if err != nil {
		t.Fatalf("__complete %q: directive %q", args, last)
	}
	var out []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		out = append(out, v)
	}
	return out, cobra.ShellCompDirective(d)
}

func TestCompleteFormat(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"gpus", "--format", ""}, dataFormats},
		{[]string{"doctor", "--format", ""}, dataFormats},
		{[]string{"stats", "--format", ""}, dataFormats},
		{[]string{"diff", "--format", ""}, dataFormats},
		{[]string{"diff", "--format", "c"}, []string{"csv"}},
		{[]string{"report", "--files", ""}, []string{"md", "json", "html"}},
		{[]string{"report", "--files", "md,"}, []string{"md,json", "md,html"}},
		{[]string{"report", "--files", "md,json,h"}, []string{"md,json,html"}},
		{[]string{"report", "--format", "md,"}, []string{"md,json", "md,html"}},
		{[]string{"ingest", "--table-format", ""}, []string{"parquet", "arrow"}},
		{[]string{"ingest", "--format", ""}, []string{"parquet", "arrow"}},
		{[]string{"stats", "--source", ""}, []string{"ncu", "nsys", "kineto"}},
		{[]string{"profile", "--passes", "check,timing,"}, []string{"check,timing,ncu", "check,timing,range", "check,timing,nsys"}},
	} {
		got, d := complete(t, tc.args...)
		if !slices.Equal(got, tc.want) || d != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("__complete %q = %q, directive %d; want %q, no files", tc.args, got, d, tc.want)
		}
	}
}

// completeDesc runs `rooftool __complete ARGS...` and returns its
// candidate lines whole: "value\tdescription".
func completeDesc(t *testing.T, args ...string) []string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(context.Background(), append([]string{cobra.ShellCompRequestCmd}, args...), &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, code, e.String())
	}
	lines := strings.Split(strings.TrimRight(o.String(), "\n"), "\n")
	return lines[:len(lines)-1]
}

// TestCompleteGPU: --gpu and gpus' NAME complete the catalog keys alone,
// one per GPU, none with a space (a shell inserts each as one word), each
// described by the GPU's full name; the names and aliases are still
// accepted by --gpu but not offered.
func TestCompleteGPU(t *testing.T) {
	specs := gpu.Catalog()
	var keys, lines []string
	for _, g := range specs {
		keys = append(keys, g.Key)
		lines = append(lines, g.Key+"\t"+g.Name)
	}
	for _, args := range [][]string{{"profile", "--gpu", ""}, {"roofline", "--gpu", ""}, {"project", "--gpu", ""}, {"gpus", ""}} {
		got, d := complete(t, args...)
		if d != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("%q: directive %d", args, d)
		}
		if !slices.Equal(got, keys) {
			t.Errorf("%q = %q, want the %d catalog keys %q", args, got, len(keys), keys)
		}
		if desc := completeDesc(t, args...); !slices.Equal(desc, lines) {
			t.Errorf("%q: candidates %q, want key<TAB>full name: %q", args, desc, lines)
		}
		for _, c := range got {
			if strings.ContainsAny(c, " \t\\'\"") {
				t.Errorf("%q offers %q: a shell would split or quote it", args, c)
			}
			if _, ok := gpu.Lookup(c); !ok {
				t.Errorf("%q offers %q, which Lookup does not know", args, c)
			}
		}
	}
	// What was typed narrows the keys, ignoring case.
	for typed, want := range map[string][]string{
		"h1":        {"h100-sxm", "h100-pcie", "h100-nvl"},
		"H2":        {"h200", "h200-nvl"},
		"rtx-4":     {"rtx-4060", "rtx-4090"},
		"NVIDIA H2": nil, // a full name is accepted, not offered
	} {
		if got, _ := complete(t, "profile", "--gpu", typed); !slices.Equal(got, want) {
			t.Errorf("--gpu %q = %q, want %q", typed, got, want)
		}
	}
	// The names and aliases that are no longer offered still name a GPU.
	for _, name := range []string{"NVIDIA H200", "H100 SXM", "Tesla T4", "NVIDIA H100 80GB HBM3"} {
		if _, ok := gpu.Lookup(name); !ok {
			t.Errorf("Lookup(%q) fails", name)
		}
	}
	// gpus' NAME argument, once.
	if got, _ := complete(t, "gpus", "t"); !slices.Equal(got, []string{"t4"}) {
		t.Errorf("gpus t = %q, want [t4]", got)
	}
	if got, _ := complete(t, "gpus", "t4", ""); len(got) != 0 {
		t.Errorf("gpus t4 '' = %q, want nothing", got)
	}
}

func TestCompleteExperimentsAndVariants(t *testing.T) {
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	all := map[string]bool{}
	for _, e := range exps {
		names = append(names, e.Name)
		for _, v := range e.Variants {
			all[v.Name] = true
		}
	}
	if got, _ := complete(t, "profile", "--experiment", ""); !slices.Equal(got, names) {
		t.Errorf("--experiment = %q, want %q", got, names)
	}
	got, _ := complete(t, "profile", "--variant", "")
	if len(got) != len(all) || !slices.IsSorted(got) {
		t.Errorf("--variant = %q, want the %d variants sorted", got, len(all))
	}
	for _, v := range got {
		if !all[v] {
			t.Errorf("--variant offers %q", v)
		}
	}
	// --experiment narrows --variant to that experiment's variants.
	e := exps[0]
	got, _ = complete(t, "profile", "--experiment", e.Name, "--variant", "")
	var want []string
	for _, v := range e.Variants {
		want = append(want, v.Name)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("--experiment %s --variant = %q, want %q", e.Name, got, want)
	}
}

func TestCompleteRuns(t *testing.T) {
	runs := testdata.Runs()
	if len(runs) == 0 {
		t.Skip("no committed runs")
	}
	for _, args := range [][]string{{"report", ""}, {"diff", ""}, {"diff", runs[0], ""}} {
		got, d := complete(t, args...)
		if !slices.Equal(got, runs) || d != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("__complete %q = %q, directive %d; want %q", args, got, d, runs)
		}
	}
	if got, _ := complete(t, "report", runs[0][:len(runs[0])-1]); !slices.Contains(got, runs[0]) {
		t.Errorf("report %s... = %q", runs[0][:len(runs[0])-1], got)
	}
	// No more arguments than the command takes.
	for _, args := range [][]string{{"report", runs[0], ""}, {"diff", runs[0], runs[0], ""}} {
		if got, d := complete(t, args...); len(got) != 0 || d != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("__complete %q = %q, directive %d; want nothing", args, got, d)
		}
	}
	// A path, or a prefix no committed run has: directories.
	for _, args := range [][]string{{"report", "runs/"}, {"diff", "./"}, {"report", "zzz"}} {
		if got, d := complete(t, args...); len(got) != 0 || d != cobra.ShellCompDirectiveFilterDirs {
			t.Errorf("__complete %q = %q, directive %d; want directories", args, got, d)
		}
	}
}

// TestCompletionRegistered checks that every command's --format, --gpu,
// --experiment and --variant completes its values.
func TestCompletionRegistered(t *testing.T) {
	root := newRootCmd(&IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	for _, c := range root.Commands() {
		for _, name := range []string{"format", "gpu", "experiment", "variant"} {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			if _, ok := c.GetFlagCompletionFunc(name); !ok {
				t.Errorf("%s --%s: no completion", c.Name(), name)
			}
		}
	}
}

// TestCompletionUnknownShell: a shell cobra has no script for, or none at
// all, is a usage error (exit 2), not help with exit 0.
func TestCompletionUnknownShell(t *testing.T) {
	for _, args := range [][]string{{"completion", "tcsh"}, {"completion"}} {
		var o, e bytes.Buffer
		if code := run(context.Background(), args, &IO{Out: &o, Err: &e}); code != exitBadArgs || !strings.Contains(e.String(), "completion") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming completion", args, code, e.String(), exitBadArgs)
		}
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"completion", "bash"}, &IO{Out: &o, Err: &e}); code != exitOK || !strings.Contains(o.String(), "bash completion") {
		t.Errorf("completion bash: exit %d, %d bytes", code, o.Len())
	}
}

// TestCompletionBashNoPackage sources `rooftool completion bash` in a bare
// `bash --norc` (no bash-completion package, so no _get_comp_words_by_ref
// nor _filedir) and completes as the shell would on TAB: `rooftool profile
// --gp` must offer --gpu and print no error, `--gpu=h2` (a word bash splits
// at =) the H200 keys, and `report --files=md,j` the list's next value.
func TestCompletionBashNoPackage(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "rooftool")); err != nil {
		t.Fatal(err)
	}
	var script bytes.Buffer
	if code := run(context.Background(), []string{"completion", "bash"}, &IO{Out: &script, Err: io.Discard}); code != exitOK {
		t.Fatalf("completion bash: exit %d", code)
	}
	if err := os.WriteFile(filepath.Join(dir, "rooftool.bash"), script.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// COMP_WORDS as bash splits the line (COMP_WORDBREAKS holds = and :).
	for _, tc := range []struct {
		line  string
		words []string
		want  []string
	}{
		{"rooftool profile --gp", []string{"rooftool", "profile", "--gp"}, []string{"--gpu", "--gpus"}},
		{"rooftool profile --gpu=h2", []string{"rooftool", "profile", "--gpu", "=", "h2"}, []string{"h200", "h200-nvl"}},
		{"rooftool report --files=md,j", []string{"rooftool", "report", "--files", "=", "md,j"}, []string{"md,json"}},
	} {
		var q []string
		for _, w := range tc.words {
			q = append(q, strconv.Quote(w))
		}
		// compopt works only inside a completion bash runs on TAB: a
		// function in its place makes the script skip it (it checks for
		// the builtin).
		sh := fmt.Sprintf(`compopt() { :; }
source %q
COMP_LINE=%q; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(%s); COMP_CWORD=%d
__start_rooftool rooftool %q %q
printf '%%s\n' "${COMPREPLY[@]}"`,
			filepath.Join(dir, "rooftool.bash"), tc.line, strings.Join(q, " "), len(tc.words)-1, tc.words[len(tc.words)-1], tc.words[len(tc.words)-2])
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", sh)
		cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + dir, asMainEnv + "=1"}
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil || e.Len() > 0 {
			t.Errorf("%q: %v, stderr %q", tc.line, err, e.String())
		}
		// The script escapes what the shell would read specially
		// (md\,json), as it inserts it into the command line.
		got := strings.Fields(strings.ReplaceAll(o.String(), `\`, ""))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: COMPREPLY %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestCompletionHelpPerUser: the set-up each shell's help gives first writes
// under the user's home, not into /etc (root only).
func TestCompletionHelpPerUser(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var o bytes.Buffer
		if code := run(context.Background(), []string{"completion", sh, "--help"}, &IO{Out: &o, Err: io.Discard}); code != exitOK {
			t.Fatalf("completion %s --help: exit %d", sh, code)
		}
		h := o.String()
		if strings.Contains(h, "/etc") || !strings.Contains(h, "> ~/") {
			t.Errorf("completion %s --help: want a per-user folder first and no /etc:\n%s", sh, h)
		}
	}
}
