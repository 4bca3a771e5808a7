// Package liberationsansbolditalic stands in for the "Liberation SansBoldItalic" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationsansbolditalic // import "codeberg.org/go-fonts/liberation/liberationsansbolditalic"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SansBoldItalic's.
var TTF = liberationserifregular.TTF
