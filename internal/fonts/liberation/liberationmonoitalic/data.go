// Package liberationmonoitalic stands in for the "Liberation MonoItalic" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationmonoitalic // import "codeberg.org/go-fonts/liberation/liberationmonoitalic"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation MonoItalic's.
var TTF = liberationserifregular.TTF
