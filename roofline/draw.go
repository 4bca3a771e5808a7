package roofline

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Colours: Okabe-Ito, readable for the colour-blind and on white (no yellow), then Tol's
// muted scheme and a brown, so that twelve series stay apart: every two of them
// differ by at least minSeriesDeltaE (CIE76 ΔE; TestSeriesColorsDistinct).
var seriesColors = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{136, 34, 85, 255},   // wine (Tol muted)
	{120, 120, 120, 255}, // grey
	// Tol muted, for a ninth series on
	{51, 34, 136, 255},  // indigo
	{153, 153, 51, 255}, // olive
	{170, 68, 153, 255}, // purple (Tol muted; its rose is too near reddish purple)
	{140, 86, 75, 255},  // brown (in place of Tol's teal, too near bluish green)
}

// minSeriesDeltaE is the least CIE76 colour difference between two series
// colours; about 2 is the least a viewer tells apart side by side, and
// markers scattered over a chart need far more.
const minSeriesDeltaE = 25

var (
	roofGrey  = color.RGBA{70, 70, 70, 255}
	roofLight = color.RGBA{140, 140, 140, 255}
)

func seriesColor(i int) color.RGBA { return seriesColors[i%len(seriesColors)] }

// textStyle returns a plain text style of the given size.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// decadeLabel prints 10^e as "0.01", "1", "100", "1k", "10M", "1T".
func decadeLabel(e int) string {
	if e < 0 {
		return strconv.FormatFloat(math.Pow10(e), 'f', -e, 64)
	}
	prefixes := []string{"", "k", "M", "G", "T", "P", "E"}
	p := e / 3
	if p >= len(prefixes) {
		return fmt.Sprintf("1e%d", e)
	}
	return strconv.Itoa(int(math.Pow10(e%3))) + prefixes[p]
}

// logTicks labels each decade with an SI prefix and the unit and marks
// 2..9 as minor ticks; where fewer than three decades fall inside the
// axis, the 2s and 5s are labelled too.
type logTicks struct{ unit string }

func (t logTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min >= max {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	inside := 0
	for e := lo; e <= hi; e++ {
		if v := math.Pow10(e); v >= min && v <= max {
			inside++
		}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow10(e)
		ticks = append(ticks, plot.Tick{Value: v, Label: decadeLabel(e) + t.unit})
		for i := 2; i < 10 && e < hi; i++ {
			tk := plot.Tick{Value: v * float64(i)}
			if inside < 3 && (i == 2 || i == 5) {
				tk.Label = siLabel(i, e) + t.unit
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// siLabel prints m x 10^e (m a digit) as decadeLabel does: "20", "5k",
// "0.2".
func siLabel(m, e int) string {
	if e < 0 {
		return strconv.FormatFloat(float64(m)*math.Pow10(e), 'f', -e, 64)
	}
	d := decadeLabel(e)
	i := 0
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(d[:i])
	return strconv.Itoa(n*m) + d[i:]
}

// Plot sizes.
var (
	rooflineW, rooflineH = 11 * vg.Inch, 7.5 * vg.Inch
	sweepW, sweepH       = 10 * vg.Inch, 6 * vg.Inch
)

// savePlot writes p as dir/base.png and dir/base.svg, each to a temporary
// name renamed into place.
func savePlot(p *plot.Plot, w, h vg.Length, dir, base string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot %s: %w", base, err)
	}
	var files []string
	for _, format := range []string{"png", "svg"} {
		wt, err := p.WriterTo(w, h, format)
		if err != nil {
			return files, fmt.Errorf("plot %s.%s: %w", base, format, err)
		}
		path := filepath.Join(dir, base+"."+format)
		f, err := os.CreateTemp(dir, "."+base+".*.tmp")
		if err != nil {
			return files, fmt.Errorf("plot %s: %w", path, err)
		}
		_, werr := wt.WriteTo(f)
		cerr := f.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(f.Name(), 0o644) // CreateTemp makes 0600; plots are shared outputs
		}
		if werr != nil {
			os.Remove(f.Name())
			return files, fmt.Errorf("plot %s: %w", path, werr)
		}
		if err := os.Rename(f.Name(), path); err != nil {
			os.Remove(f.Name())
			return files, fmt.Errorf("plot %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// placed keeps the rectangles of text already drawn so that later labels
// can avoid them.
type placed []vg.Rectangle

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func (ps placed) free(r vg.Rectangle, c draw.Canvas) bool {
	if r.Min.X < c.Min.X || r.Max.X > c.Max.X || r.Min.Y < c.Min.Y || r.Max.Y > c.Max.Y {
		return false
	}
	for _, q := range ps {
		if overlaps(r, q) {
			return false
		}
	}
	return true
}

// textRect is the box of txt drawn with its bottom-left corner at pt.
func textRect(sty text.Style, pt vg.Point, txt string) vg.Rectangle {
	w, h := sty.Width(txt), sty.Height(txt)
	return vg.Rectangle{Min: pt, Max: vg.Point{X: pt.X + w, Y: pt.Y + h}}
}

// fillTextBG draws txt with a white box behind it so lines under it do not
// make it hard to read.
func fillTextBG(c draw.Canvas, sty text.Style, pt vg.Point, txt string) vg.Rectangle {
	r := textRect(sty, pt, txt)
	pad := vg.Points(1)
	c.FillPolygon(color.NRGBA{255, 255, 255, 220}, []vg.Point{
		{X: r.Min.X - pad, Y: r.Min.Y - pad}, {X: r.Max.X + pad, Y: r.Min.Y - pad},
		{X: r.Max.X + pad, Y: r.Max.Y + pad}, {X: r.Min.X - pad, Y: r.Max.Y + pad}})
	c.FillText(sty, pt, txt)
	return r
}

// shorten cuts a kernel name to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// linTicks labels round values at a 1-2-5 step with as many decimals as the
// step needs (gonum's DefaultTicks can label 1.08 as "1.1").
type linTicks struct{}

func (linTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return nil
	}
	raw := (max - min) / 8
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	var ticks []plot.Tick
	for i := math.Ceil(min / step); i*step <= max+step*1e-9; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
		if mv := v + step/2; mv < max {
			ticks = append(ticks, plot.Tick{Value: mv})
		}
	}
	return ticks
}
