// Package buildinfo says what rooftool knows of its own build: the
// version and the commit and date its link flags set, else the commit the
// Go toolchain recorded of the checkout it built in, with the Go version
// and platform. `rooftool version` prints it.
//
// It is a leaf package: it imports no other package of rooftool.
package buildinfo
