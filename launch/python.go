package launch

import (
	"os"
	"path/filepath"
)

// VenvPython is the interpreter of the project's virtual environment, the
// one scripts/setup.sh makes and `make test` runs the Python tests with,
// relative to the repository root (where rooftool runs from).
const VenvPython = ".venv/bin/python"

// DefaultPython is the interpreter profile runs kernels/run.py with, and
// doctor checks, when none is named: VenvPython where it exists under the
// working directory (scripts/setup.sh makes it with the system's site
// packages, so it sees the torch python3 has); else the python3 beside
// the rooftool binary, where rooftool is installed into a Python
// environment (pip install rooftool: that environment's packages,
// rooftool's extras among them, are the runner's); else python3 from PATH.
func DefaultPython() string {
	if isExecutable(VenvPython) {
		return VenvPython
	}
	if exe, err := executable(); err == nil {
		if py := filepath.Join(filepath.Dir(exe), "python3"); isExecutable(py) {
			return py
		}
	}
	return "python3"
}

// isExecutable reports whether p is a file (or a link to one) with an
// execute bit.
func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// GPURequirements is the file, under the kernels folder, that lists the
// Python packages the runner needs on a GPU machine (torch, Triton,
// PyYAML, numpy), for pip install -r.
const GPURequirements = "requirements-gpu.txt"
