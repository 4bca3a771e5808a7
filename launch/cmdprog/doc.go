// Package cmdprog is rooftool profile --cmd's side of a program of the
// user's own that marks its cells with the helper kernels/common/marks.py:
// the command line split into words without a shell (Target), the
// helper's settings for each run of the program, the helper package
// written into the run directory, the cells a list run of the program
// marked (read back from its marks.jsonl), and the experiments and
// specs/ snapshot made of those cells and the --claims file, checked as
// rooftool's own specs are.
//
// It runs no process: the profile runner (launch, program.go) runs the
// program's discovery run and passes and calls this package for what they
// need; cmd/rooftool builds the Target from --cmd and --claims. It imports
// plan (ConfigError) and no other package under launch.
package cmdprog
