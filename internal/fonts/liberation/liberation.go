// Copyright ©2020 The go-fonts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package liberation stands in for codeberg.org/go-fonts/liberation v0.5.0
// in rooftool's build (the replace directive of rooftool's go.mod): it
// carries one face, Liberation Serif Regular, byte for byte as v0.5.0 ships
// it, and the eleven other face packages give that face's TTF as theirs.
//
// gonum.org/v1/plot registers all twelve Liberation faces when it starts,
// so each face package it imports ends up in the binary (4.4 MB for the
// twelve). rooftool draws every plot text in plot.DefaultFont (Liberation
// Serif, regular weight and style) through the plain text handler, so only
// that face is ever looked up; the charts are byte-identical with this
// module and with v0.5.0. A plot that asked for Sans, Mono, bold or italic
// would get the serif regular face instead: add that face's package here
// (copied from v0.5.0) before drawing with it.
package liberation // import "codeberg.org/go-fonts/liberation"
