package pipeline

import (
	"fmt"

	"github.com/rooftool/rooftool/gpu"
)

// GPU is the GPU a command was told to judge its input against, resolved
// once from its flags (ResolveGPU): --gpu with its catalog entry, and
// --ceilings, the measured ceilings that stand in for an input's own
// ceilings.json. The zero GPU names none: the input's own device and
// ceilings count.
type GPU struct {
	Name     string        // --gpu as given ("": the device the input names)
	Spec     gpu.Spec      // Name's catalog entry (zero where Name is "")
	Measured *gpu.Measured // --ceilings (nil: the run's ceilings.json, where it has one)
}

// ResolveGPU checks --gpu against the catalog (gpu.Find) and reads
// --ceilings; "" leaves either out. A name the catalog lacks or a ceilings
// file that does not read is a *BadInputError naming the flag.
func ResolveGPU(name, ceilings string) (GPU, error) {
	g := GPU{Name: name}
	if name != "" {
		spec, err := gpu.Find(name)
		if err != nil {
			return GPU{}, &BadInputError{fmt.Errorf("--gpu %q: %w", name, err)}
		}
		g.Spec = spec
	}
	if ceilings != "" {
		m, err := gpu.ReadMeasured(ceilings)
		if err != nil {
			return GPU{}, &BadInputError{fmt.Errorf("--ceilings: %w", err)}
		}
		g.Measured = m
	}
	return g, nil
}

// Roofs are the roofs of tables whose exports state dev (their own peaks,
// analysis.DeviceCeilings): those, then the catalog entry of g (or of the
// device dev names) for what dev lacks, then the measured ceilings, g's
// own or else measured (a run's ceilings.json; nil: none).
func (g GPU) Roofs(dev gpu.Ceilings, measured *gpu.Measured) gpu.Ceilings {
	if g.Measured != nil {
		measured = g.Measured
	}
	return gpu.CeilingsFor(dev, g.Name, measured)
}

// BadInputError is bad usage or bad input met while opening what a
// command was given (a --gpu the catalog lacks, a --ceilings or a run's
// ceilings.json that does not read, a flag that does not fit the input):
// exit status 2, as for an *ingest.InputError or a *RunInputError. Its
// message is Err's.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }
