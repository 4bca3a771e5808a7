// Package liberationsansitalic stands in for the "Liberation SansItalic" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationsansitalic // import "codeberg.org/go-fonts/liberation/liberationsansitalic"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SansItalic's.
var TTF = liberationserifregular.TTF
