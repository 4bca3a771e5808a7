package suggest

import (
	"slices"
	"testing"
)

// Inductor names a kernel by the aten ops it fused, joined by "_"; ops
// whose names hold "_" themselves are read whole where the baseline's
// dataflow has them, else token by token.
func TestFusedOpsMultiWord(t *testing.T) {
	vocab := map[string]bool{"sigmoid": true, "sigmoid_backward": true, "silu": true, "silu_backward": true,
		"clamp_min": true, "masked_fill": true, "scalar_tensor": true, "linalg_vector_norm": true, "add": true, "mm": true}
	for _, tc := range []struct {
		name  string
		vocab map[string]bool
		want  []string
		gemm  bool
	}{
		{"triton_poi_fused_sigmoid_backward_0", vocab, []string{"sigmoid_backward"}, false},
		{"triton_poi_fused_silu_silu_backward_1", vocab, []string{"silu", "silu_backward"}, false},
		{"triton_per_fused_clamp_min_div_expand_linalg_vector_norm_view_2", vocab,
			[]string{"clamp_min", "div", "expand", "linalg_vector_norm", "view"}, false},
		{"triton_per_fused_add_clamp_min_div_eq_expand_ge_masked_fill_mul_neg_scalar_tensor_sum_view_where_2", vocab,
			[]string{"add", "clamp_min", "div", "eq", "expand", "ge", "masked_fill", "mul", "neg", "scalar_tensor", "sum", "view", "where"}, false},
		{"triton_poi_fused_sigmoid_backward_0", nil, []string{"sigmoid", "backward"}, false},
		{"triton_tem_fused_addmm_sigmoid_backward_3", vocab, []string{"add", "sigmoid_backward"}, true},
	} {
		ops, gemm, ok := fusedOps(tc.name, tc.vocab)
		if !ok || gemm != tc.gemm || !slices.Equal(ops, tc.want) {
			t.Errorf("fusedOps(%q) = %v, %v, %v; want %v, %v", tc.name, ops, gemm, ok, tc.want, tc.gemm)
		}
	}
}

// An edge sigmoid -> sigmoid_backward is fused only by a kernel holding
// both ops, not by one holding sigmoid_backward alone.
func TestFusedEdgesMultiWordOp(t *testing.T) {
	chains := []Chain{{Index: 0, Basis: BasisDataflow, Edges: []ChainEdge{
		{From: 0, To: 1, FromOp: "mm", ToOp: "sigmoid", ReadSavedBytes: 10, WriteSavedBytes: 10},
		{From: 1, To: 2, FromOp: "sigmoid", ToOp: "sigmoid_backward", ReadSavedBytes: 5},
	}}}
	seq := []Kernel{{Name: "gemm", GEMM: true}, {Name: "sigmoid", DurationNs: 10}, {Name: "sigmoid_backward", DurationNs: 15}}
	for _, tc := range []struct {
		cand []string
		want string
	}{
		{[]string{"nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNN", "triton_poi_fused_sigmoid_0", "triton_poi_fused_sigmoid_backward_0"}, ""},
		{[]string{"nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNN", "triton_poi_fused_sigmoid_sigmoid_backward_0"}, "sigmoid->sigmoid_backward"},
	} {
		desc, k, _, _, known := fusedEdges(chains, seq, tc.cand)
		if !known || desc != tc.want || (k == 0) != (tc.want == "") {
			t.Errorf("%v: fused %q (%d kernels, known %v); want %q", tc.cand, desc, k, known, tc.want)
		}
	}
}
