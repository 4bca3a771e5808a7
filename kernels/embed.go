// Package kernels embeds rooftool's Python side into the binary: the
// experiments' spec.yaml and claims.yaml (read by package spec), the
// runner kernels/run.py with the shared code of common/ (RunnerFS,
// ExtractRunner) and the ceilings script. The experiments themselves, one
// folder each with its Python variants, live beside this file.
package kernels

import "embed"

// SpecFS holds every built-in experiment's spec.yaml and claims.yaml,
// <name>/spec.yaml and <name>/claims.yaml; spec.Load reads it.
//
//go:embed */spec.yaml */claims.yaml
var SpecFS embed.FS
