// Package liberationmonobold stands in for the "Liberation MonoBold" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationmonobold // import "codeberg.org/go-fonts/liberation/liberationmonobold"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation MonoBold's.
var TTF = liberationserifregular.TTF
