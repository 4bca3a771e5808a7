package verdict

import (
	"math"
	"testing"
)

// TestDRAMBeyondEpilogueCommitted: gated_ssm's quack-epilogue at d=2048 in
// run 2026-11-27-h100-222424, from its raw ncu CSVs
// (raw/ncu/gated_ssm/<variant>/B=16,T=2048,d=2048,H=16,dk=128,n=16.csv.gz,
// dram__bytes_read.sum + dram__bytes_write.sum of each kernel with tensor
// work), read by hand:
//
//	quack-epilogue: seg_epi 790,828,288 + 417,765,376; gate_epi 407,669,504 + 256,610,816;
//	                residual 508,024,832 + 131,589,376                  = 2,512,488,192 B
//	eager (cuBLAS nvjet x4): 660,220,928 + 393,905,408; 160,412,160 + 123,344,384;
//	                136,340,224 + 11,033,088; 167,353,088 + 123,312,896 = 1,775,922,176 B
//
// Its epilogues' own operands by the dataflow (claims.yaml): the gate GEMM
// reads o and writes go, the out-projection reads x, bf16:
// 2*(2*B*T*H*dk + B*T*d) = 2*(2*32768*2048 + 32768*2048) = 402,653,184 B.
// Beyond them: (2,512,488,192 - 402,653,184) / 1,775,922,176 = 1.18802.
func TestDRAMBeyondEpilogueCommitted(t *testing.T) {
	in := loadCommitted(t, "2026-11-27-h100-222424")
	rep := Build(in)
	const shape = "B=16,T=2048,d=2048,H=16,dk=128,n=16"
	quack := 790828288.0 + 417765376 + 407669504 + 256610816 + 508024832 + 131589376
	eager := 660220928.0 + 393905408 + 160412160 + 123344384 + 136340224 + 11033088 + 167353088 + 123312896
	epi := 2 * (2*32768*2048.0 + 32768*2048)
	var row *QualityRow
	for _, e := range rep.Experiments {
		for i := range e.Quality {
			if q := &e.Quality[i]; e.Name == "gated_ssm" && q.Variant == "quack-epilogue" && q.Shape == shape {
				row = q
			}
		}
	}
	if row == nil {
		t.Fatal("no quality row of gated_ssm quack-epilogue at d=2048")
	}
	if row.EpilogueOperandBytes == nil || *row.EpilogueOperandBytes != epi || epi != 402653184 {
		t.Errorf("epilogue_operand_bytes %v, want %v", row.EpilogueOperandBytes, epi)
	}
	want := (quack - epi) / eager
	if math.Abs(row.DRAMBeyondEpilogue-want) > 1e-9 || math.Abs(want-1.18802) > 1e-5 || row.LibraryVariant != "eager" {
		t.Errorf("dram_beyond_epilogue_of_library %.6f of %q, want %.6f of eager", row.DRAMBeyondEpilogue, row.LibraryVariant, want)
	}
	if math.Abs(row.GEMMDRAM-quack/eager) > 1e-9 {
		t.Errorf("gemm_dram_of_library %.6f, want %.6f", row.GEMMDRAM, quack/eager)
	}
}
