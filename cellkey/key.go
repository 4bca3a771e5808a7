// Package cellkey names a cell of a run: one variant of one experiment at
// one shape. It imports no other package of the module, so every stage,
// ingest included, keys its rows and facts by the same type.
package cellkey

import (
	"fmt"
	"strings"
)

// Key identifies a cell: one variant of one experiment at one shape. It is
// comparable, so it keys maps directly; String gives the canonical
// "experiment/variant/shape" form used in NVTX paths and file names.
type Key struct {
	Experiment string `json:"experiment"`
	Variant    string `json:"variant"`
	Shape      string `json:"shape"`
}

// String is "experiment/variant/shape".
func (k Key) String() string { return k.Experiment + "/" + k.Variant + "/" + k.Shape }

// Less orders keys by experiment, variant, then shape.
func (k Key) Less(o Key) bool {
	if k.Experiment != o.Experiment {
		return k.Experiment < o.Experiment
	}
	if k.Variant != o.Variant {
		return k.Variant < o.Variant
	}
	return k.Shape < o.Shape
}

// Parse splits "experiment/variant/shape" (the shape may not contain '/').
func Parse(s string) (Key, error) {
	parts := strings.SplitN(s, "/", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" || strings.Contains(parts[2], "/") {
		return Key{}, fmt.Errorf("cell %q: want experiment/variant/shape", s)
	}
	return Key{parts[0], parts[1], parts[2]}, nil
}

// New is the key of one variant of one experiment at one shape.
func New(experiment, variant, shape string) Key {
	return Key{Experiment: experiment, Variant: variant, Shape: shape}
}
