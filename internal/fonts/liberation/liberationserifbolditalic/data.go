// Package liberationserifbolditalic stands in for the "Liberation SerifBoldItalic" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationserifbolditalic // import "codeberg.org/go-fonts/liberation/liberationserifbolditalic"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SerifBoldItalic's.
var TTF = liberationserifregular.TTF
