// Package liberationsansbold stands in for the "Liberation SansBold" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationsansbold // import "codeberg.org/go-fonts/liberation/liberationsansbold"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SansBold's.
var TTF = liberationserifregular.TTF
