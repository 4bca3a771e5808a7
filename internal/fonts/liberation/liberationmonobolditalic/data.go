// Package liberationmonobolditalic stands in for the "Liberation MonoBoldItalic" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationmonobolditalic // import "codeberg.org/go-fonts/liberation/liberationmonobolditalic"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation MonoBoldItalic's.
var TTF = liberationserifregular.TTF
