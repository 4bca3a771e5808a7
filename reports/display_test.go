package reports

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/figure"
	"github.com/rooftool/rooftool/verdict"
)

// Small goldens of how report.md shows figures of run
// 2026-11-23-h100-161238, one per situation a display met
// (testdata/display/):
//
//   - interval-bounds-own-value: an interval whose bounds round
//     differently from the centre (eager's wall at the MVE shape, lo
//     168.832 us; swiglu dual-acc's, [95.488, 95.776] us) is printed with
//     each bound from its own value: [168.8, 179.6], [95.49, 95.78];
//   - l2-bytes-by-source: the L2 bytes of the cell tables are the figure the
//     DRAM decision quotes (range pass, 585.8 MB for triton-epilogue at the
//     MVE shape), the kernel-pass sum only where the range does not cover
//     the cell, marked "*";
//   - l2-note-nothing-more: where the baseline already measures no more
//     DRAM than the candidate's model (scan_gate at B=4,T=2048), the L2 note
//     says the fusion can remove nothing more instead of "at most — more".
func TestDisplaySituations(t *testing.T) {
	rep := Build(*loadCommitted(t, "2026-11-23-h100-161238"))
	row := func(exp, variant, shapePrefix string) verdict.CellRow {
		for _, e := range rep.Experiments {
			for _, s := range e.Shapes {
				for _, rw := range s.Rows {
					if e.Name == exp && rw.Variant == variant && strings.HasPrefix(s.Shape, shapePrefix) {
						return rw
					}
				}
			}
		}
		t.Fatalf("no row %s/%s at %s", exp, variant, shapePrefix)
		return verdict.CellRow{}
	}
	reason := func(exp, claim, shapePrefix string) string {
		for _, d := range rep.Decisions {
			if d.Experiment == exp && d.Claim == claim && strings.HasPrefix(d.Shape, shapePrefix) {
				return d.Reason
			}
		}
		t.Fatalf("no decision %s/%s at %s", exp, claim, shapePrefix)
		return ""
	}
	wall := func(rw verdict.CellRow) string {
		return figure.Seconds(rw.WallMs.Center/1e3, rw.WallMs.Lo/1e3, rw.WallMs.Hi/1e3)
	}
	l2Note := regexp.MustCompile(`L2 bytes [^;]*`)
	saves := regexp.MustCompile(`L2 already gives [^;]*`)
	cases := map[string]func() string{
		"interval-bounds-own-value": func() string {
			return fmt.Sprintf("gated_ssm eager B=16,T=512 wall %s\nswiglu dual-acc wall %s\n",
				wall(row("gated_ssm", "eager", "B=16,T=512,")), wall(row("swiglu", "dual-acc", "M=512,")))
		},
		"l2-bytes-by-source": func() string {
			var b strings.Builder
			for _, v := range []string{"eager", "triton-epilogue"} {
				fmt.Fprintf(&b, "gated_ssm %s B=16,T=512 L2 column %s\n", v, l2Cell(row("gated_ssm", v, "B=16,T=512,")))
			}
			fmt.Fprintf(&b, "hbm-traffic B=16,T=512: %s\n", l2Note.FindString(reason("gated_ssm", "hbm-traffic", "B=16,T=512,")))
			kernelOnly := row("gated_ssm", "triton-epilogue", "B=16,T=512,")
			kernelOnly.RangeL2Bytes = 0 // as for a cell whose range pass is partial or missing
			fmt.Fprintf(&b, "triton-epilogue without a covering range: L2 column %s\n", l2Cell(kernelOnly))
			return b.String()
		},
		"l2-note-nothing-more": func() string {
			var b strings.Builder
			for _, c := range []string{"dram-semi-fused", "dram-megakernel"} {
				fmt.Fprintf(&b, "scan_gate %s: %s\n", c, saves.FindString(reason("scan_gate", c, "B=4,T=2048,")))
			}
			return b.String()
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			golden(t, filepath.Join("display", name+".txt"), []byte(f()))
		})
	}
}
