// Package liberationserifitalic stands in for the "Liberation SerifItalic" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationserifitalic // import "codeberg.org/go-fonts/liberation/liberationserifitalic"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SerifItalic's.
var TTF = liberationserifregular.TTF
