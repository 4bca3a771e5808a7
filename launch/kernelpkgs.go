package launch

import (
	"strings"

	"github.com/rooftool/rooftool/spec"
)

// KernelPackage is an optional Python package that some variants need
// (their spec.yaml says requires: Key): without it in the runner's
// Python those cells are skipped with the reason. The rooftool wheel
// installs it as its extra of the same name (pip install
// 'rooftool[quack]'; packaging/wheel/pyproject.toml, whose extras a test
// checks against this table).
type KernelPackage struct {
	Key    string // the requires: word of spec.yaml, and the wheel's extra
	Module string // the module the runner looks for (kernels/common/runner.py, requires_missing)
	Dist   string // its PyPI distribution, whose version doctor reports
	// Pins are the distributions the extra installs, at the versions the
	// committed runs measured with where they name one.
	Pins []string
}

// KernelPackages are the optional packages of the built-in variants.
var KernelPackages = []KernelPackage{
	{Key: "quack", Module: "quack", Dist: "quack-kernels", Pins: []string{"quack-kernels==0.6.5", "nvidia-cutlass-dsl==4.8.1"}},
	{Key: "cutlass", Module: "cutlass_cppgen", Dist: "nvidia-cutlass", Pins: []string{"nvidia-cutlass==4.2.0.0"}},
	{Key: "fla", Module: "fla", Dist: "flash-linear-attention", Pins: []string{"flash-linear-attention"}},
}

// TorchExtra is the wheel's extra that installs the runner's torch and
// Triton from PyPI (a CUDA build of torch that matches the driver may need
// PyTorch's own index instead: kernels/requirements-gpu.txt says how).
const TorchExtra = "torch"

// AllExtra is the wheel's extra that installs every KernelPackage and
// TorchExtra.
const AllExtra = "all"

// NeedsPackage lists the variants of exps that need the package key
// ("experiment/variant"), in spec order.
func NeedsPackage(exps []*spec.Experiment, key string) []string {
	var out []string
	for _, e := range exps {
		for _, v := range e.Variants {
			if v.Requires == key {
				out = append(out, e.Name+"/"+v.Name)
			}
		}
	}
	return out
}

// installHint is the command that installs the package into python: the
// wheel's extra where that Python has the rooftool wheel installed
// (wheel), else its pinned distributions.
func (p KernelPackage) installHint(python string, wheel bool) string {
	if wheel {
		return python + " -m pip install 'rooftool[" + p.Key + "]'"
	}
	return python + " -m pip install " + strings.Join(p.Pins, " ")
}
