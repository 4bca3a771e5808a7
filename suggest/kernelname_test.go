package suggest

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/testgz"

	_ "github.com/mattn/go-sqlite3"
)

func TestOwnName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cudnn::gemm::computeOffsetsKernel(cudnn::gemm::ComputeOffsetsParams)", "computeOffsetsKernel"},
		{"void fft2d_r2c_32x32<float, (bool)0, (unsigned int)1, (bool)0>(float2 *, const T1 *, int, cudnn::reduced_divisor, bool, int2, int, int)", "fft2d_r2c_32x32"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase &)::{lambda()#1}, at::detail::Array<char *, 2>>(int, T2, T3)", "vectorized_elementwise_kernel"},
		{"nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNN", "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNN"},
		{"triton_poi_fused_mul_silu_1", "triton_poi_fused_mul_silu_1"},
		{"void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<int>>>(T1::Params)", "Kernel"},
	} {
		if got := OwnName(c.in); got != c.want {
			t.Errorf("OwnName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Kernels of the public exports under testdata/realdata (names copied from
// their StringIds), classified by hand: a kernel is a GEMM by its own name
// or, for CUTLASS's generic Kernel, by what its template argument runs; a
// namespace (cudnn::gemm) or a parameter type (cudnn::reduced_divisor)
// says nothing.
func TestKernelNamesOfRealExports(t *testing.T) {
	gemm := map[string]bool{
		"cudnn::gemm::computeOffsetsKernel(cudnn::gemm::ComputeOffsetsParams)":                                                                                                                                   false,
		"compute_gemm_pointers(float2 **, const float2 *, int, const float2 *, int, const float2 *, int, int)":                                                                                                   false,
		"void gemmSN_NN_kernel<float, (int)128, (int)2, (int)4, (int)8, (int)3, (int)4, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>>(cublasGemmSmallNParams<T8, T9, T1>)": true,
		"void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<cutlass::gemm::GemmShape<(int)128, (int)128, (int)32>>>>(T1::Params)":                                         true,
		"void fft2d_r2c_32x32<float, (bool)0, (unsigned int)1, (bool)0>(float2 *, const T1 *, int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)":                        false,
	}
	for name, want := range gemm {
		if got := IsGEMM(name, 0, false); got != want {
			t.Errorf("IsGEMM(%q) = %v, want %v", name, got, want)
		}
	}
	fft := "void fft2d_r2c_32x32<float, (bool)0, (unsigned int)1, (bool)0>(float2 *, const T1 *, int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)"
	if r := FoldBlock(Kernel{Name: fft}, 0); strings.Contains(r, "reduction") || !strings.Contains(r, "fft") {
		t.Errorf("FoldBlock(fft2d_r2c) = %q: an FFT (not a reduction: a parameter type is not what the kernel does)", r)
	}
	// cuDNN's convolution kernel is no epilogue work of the GEMM before it.
	if r := FoldBlock(Kernel{Name: "volta_scudnn_128x64_relu_interior_nn_v1"}, 0); !strings.Contains(r, "convolution") {
		t.Errorf("FoldBlock(volta_scudnn) = %q, want a convolution", r)
	}

	// Every nsys export there: no kernel whose own name holds no GEMM word
	// (and is no generic wrapper) is taken for a GEMM.
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "realdata", "*", "*.sqlite"))
	gz, _ := filepath.Glob(filepath.Join("..", "testdata", "realdata", "*", "*.sqlite.gz"))
	for _, g := range gz { // committed gzipped: SQLite reads a plain file
		plain := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(g), ".gz"))
		testgz.To(t, g, plain)
		files = append(files, plain)
	}
	if len(files) == 0 {
		t.Skip("no nsys exports under testdata/realdata")
	}
	seen := 0
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		db, err := sql.Open("sqlite3", "file:"+f+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query("SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName")
		if err != nil {
			db.Close()
			continue // an export without kernels
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			seen++
			own := strings.ToLower(OwnName(n))
			if IsGEMM(n, 0, false) && !strings.Contains(nameWords(n), "gemm") && !strings.Contains(own, "nvjet") &&
				!strings.Contains(own, "xmma") && !strings.Contains(own, "cutlass") && !strings.Contains(own, "cublas") {
				t.Errorf("%s: %q taken for a GEMM", filepath.Base(filepath.Dir(f)), n)
			}
		}
		rows.Close()
		db.Close()
	}
	if seen == 0 {
		t.Fatal("no kernel names read from the realdata exports")
	}
}
