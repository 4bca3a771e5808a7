package launch

import "os"

// VenvPython is the interpreter of the project's virtual environment, the
// one scripts/setup.sh makes and `make test` runs the Python tests with,
// relative to the repository root (where rooftool runs from).
const VenvPython = ".venv/bin/python"

// DefaultPython is the interpreter profile runs kernels/run.py with, and
// doctor checks, when none is named: VenvPython where it exists under the
// working directory (scripts/setup.sh makes it with the system's site
// packages, so it sees the torch python3 has), else python3 from PATH.
func DefaultPython() string {
	if st, err := os.Stat(VenvPython); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		return VenvPython
	}
	return "python3"
}

// GPURequirements is the file, under the kernels folder, that lists the
// Python packages the runner needs on a GPU machine (torch, Triton,
// PyYAML, numpy), for pip install -r.
const GPURequirements = "requirements-gpu.txt"
