package metric

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ncuName is how an Nsight Compute metric is spelled: a unit, two
// underscores, the counter and its roll-up (gpu__time_duration.sum); a '*'
// stands for the names a pattern expands to.
var ncuName = regexp.MustCompile(`^[a-z0-9]+__[a-z0-9_.*]+$`)

// TestOneVocabulary: outside this package no Go file of the module (tests
// left out: they may spell what an export holds) writes an ncu metric name
// as a string of its own; it names the constant here.
func TestOneVocabulary(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "metric" || n == "kernels" || n == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && ncuName.MatchString(s) {
				t.Errorf("%s: %q: name it through package metric", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKernelList: the kernel pass asks for every metric the roofline and
// the quality table read, once each. The names are ncu's, as `ncu
// --query-metrics` lists them on an H200 with ncu 2025.3.1 (METHOD.md).
func TestKernelList(t *testing.T) {
	for _, want := range []string{
		"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
		"l1tex__t_bytes.sum", "sm__cycles_elapsed.avg.per_second", "dram__bytes.sum.peak_sustained",
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
		"smsp__average_warps_issue_stalled_*.ratio", "device__attribute_l2_cache_size",
	} {
		if !slices.Contains(Kernel, want) {
			t.Errorf("the kernel pass lacks %s", want)
		}
	}
	seen := map[string]bool{}
	for _, m := range append(slices.Clone(Kernel), Range...) {
		if !ncuName.MatchString(m) {
			t.Errorf("%q is no ncu metric name", m)
		}
	}
	for _, m := range Kernel {
		if seen[m] {
			t.Errorf("%s twice in the kernel pass", m)
		}
		seen[m] = true
	}
	for _, m := range Range {
		if !seen[m] {
			t.Errorf("the range pass's %s is not in the kernel pass: the coverage compares the two", m)
		}
	}
}
