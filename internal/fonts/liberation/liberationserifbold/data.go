// Package liberationserifbold stands in for the "Liberation SerifBold" face of
// codeberg.org/go-fonts/liberation: rooftool never draws with it, and its
// TTF is Liberation Serif Regular's (see package liberation).
package liberationserifbold // import "codeberg.org/go-fonts/liberation/liberationserifbold"

import "codeberg.org/go-fonts/liberation/liberationserifregular"

// TTF is Liberation Serif Regular's data, not Liberation SerifBold's.
var TTF = liberationserifregular.TTF
