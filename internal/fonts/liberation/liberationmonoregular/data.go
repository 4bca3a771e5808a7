// Package liberationmonoregular stands in for the "Liberation MonoRegular" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationmonoregular // import "codeberg.org/go-fonts/liberation/liberationmonoregular"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation MonoRegular's.
var TTF = liberationserifregular.TTF
