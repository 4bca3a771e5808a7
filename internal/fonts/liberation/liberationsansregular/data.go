// Package liberationsansregular stands in for the "Liberation SansRegular" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationsansregular // import "codeberg.org/go-fonts/liberation/liberationsansregular"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SansRegular's.
var TTF = liberationserifregular.TTF
