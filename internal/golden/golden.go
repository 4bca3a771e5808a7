// Package golden compares what tests produce with golden files under a
// package's testdata, and rewrites them when the tests run with -update:
// the one golden flag of every package's tests. Text is compared byte for
// byte with a diff on mismatch; plots by what they draw (Plot): an SVG by
// its element structure, a PNG by being a decodable image of the golden's
// size.
package golden

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata with what the tests produce")

// write stores got as the golden file path.
func write(t testing.TB, path string, got []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, got, 0o644); err != nil {
		t.Fatal(err)
	}
}

// read loads the golden file path, failing the test with how to make it.
func read(t testing.TB, path string) []byte {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	return want
}

// Check compares got with the golden file at path, byte for byte, or
// rewrites the file under -update. A mismatch reports a diff.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		write(t, path, got)
		return
	}
	want := read(t, path)
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from the golden file (-want +got; -update to accept):\n%s", path, d)
	}
}

// Plot compares a plot file (got: its path) with the golden file of the
// same base name in dir, or copies it there under -update: an SVG by its
// structure (SVGStructure), a PNG by decoding both and comparing their
// sizes; any other file byte for byte.
func Plot(t testing.TB, dir, got string) {
	t.Helper()
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(got))
	if *update {
		write(t, path, data)
		return
	}
	want := read(t, path)
	switch strings.ToLower(filepath.Ext(got)) {
	case ".svg":
		g, err := SVGStructure(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		w, err := SVGStructure(bytes.NewReader(want))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("%s draws other than %s (-want +got; -update after checking the new plot):\n%s", got, path, d)
		}
	case ".png":
		g, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", got, err)
		}
		w, err := png.DecodeConfig(bytes.NewReader(want))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", path, err)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Fatalf("%s: does not decode: %v", got, err)
		}
		if g.Width != w.Width || g.Height != w.Height {
			t.Errorf("%s is %dx%d, %s %dx%d", got, g.Width, g.Height, path, w.Width, w.Height)
		}
	default:
		if !bytes.Equal(data, want) {
			t.Errorf("%s differs from %s (-update after checking it)", got, path)
		}
	}
}

// number matches a decimal number in an attribute or a path.
var number = regexp.MustCompile(`-?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?`)

// SVGStructure is an SVG as one line per element, text and attribute:
// element names nested by indentation, attributes sorted, numbers rounded
// to one decimal (an SVG renderer's last digits are not what a plot
// draws), text as it is. Two plots with the same structure draw the same
// marks, labels and lines.
func SVGStructure(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	var out []string
	depth := 0
	round := func(s string) string {
		return number.ReplaceAllStringFunc(s, func(n string) string {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return n
			}
			return strconv.FormatFloat(f, 'f', 1, 64)
		})
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("SVG: %w", err)
		}
		ind := strings.Repeat(" ", depth)
		switch x := tok.(type) {
		case xml.StartElement:
			attrs := make([]string, 0, len(x.Attr))
			for _, a := range x.Attr {
				attrs = append(attrs, a.Name.Local+"="+round(a.Value))
			}
			sort.Strings(attrs)
			out = append(out, ind+"<"+x.Name.Local+" "+strings.Join(attrs, " "))
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if s := strings.TrimSpace(string(x)); s != "" {
				out = append(out, ind+"text "+s)
			}
		}
	}
}
