package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rooftool/rooftool/internal/checkout"
)

// KernelsEnv is the environment variable that names the kernels folder
// (run.py, the experiments) where --kernels is not given.
const KernelsEnv = "ROOFTOOL_KERNELS"

// Where FindKernels found the kernels folder (Kernels.From).
const (
	KernelsFromFlag      = "--kernels"
	KernelsFromEnv       = "$" + KernelsEnv
	KernelsFromCheckout  = "checkout"
	KernelsFromInstalled = "installed"
)

// InstalledKernels are the folders, relative to the folder of the rooftool
// binary (symbolic links resolved), where an installed rooftool keeps its
// kernels: the wheel's data folder of the environment whose bin/ holds
// the binary (share/rooftool/kernels; make install puts them there under
// its PREFIX too), and kernels/ beside the binary (a release archive).
var InstalledKernels = []string{
	filepath.Join("..", "share", "rooftool", "kernels"),
	"kernels",
}

// Kernels is the kernels folder a command runs the experiments from: the
// runner kernels/run.py, the shared code of common/ and one folder per
// experiment (spec.yaml, claims.yaml, its variants' Python).
type Kernels struct {
	Dir   string   // the folder; "" where none was found
	From  string   // how it was found: KernelsFromFlag, KernelsFromEnv, KernelsFromCheckout, KernelsFromInstalled
	Tried []string // where none was found: the folders looked in, in order
}

// executable is the rooftool binary whose installed kernels FindKernels
// looks for (a variable for the tests).
var executable = os.Executable

// FindKernels finds the kernels folder: flag (--kernels) where given, else
// $ROOFTOOL_KERNELS, else the kernels/ of the rooftool checkout that holds
// the working directory (the working directory's own kernels/ first,
// relative as it is, then the repository root's), else the kernels
// installed beside the binary (InstalledKernels). A folder named by the
// flag or the variable is taken as it is; the others must hold run.py.
func FindKernels(flag string) Kernels {
	if flag != "" {
		return Kernels{Dir: flag, From: KernelsFromFlag}
	}
	if d := os.Getenv(KernelsEnv); d != "" {
		return Kernels{Dir: d, From: KernelsFromEnv}
	}
	var tried []string
	has := func(dir string) bool {
		tried = append(tried, dir)
		return fileExists(filepath.Join(dir, "run.py"))
	}
	if has("kernels") {
		return Kernels{Dir: "kernels", From: KernelsFromCheckout}
	}
	if root, _ := checkout.Root(); root != "" {
		dir := filepath.Join(root, "kernels")
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, dir); err == nil {
				dir = rel
			}
		}
		if has(dir) {
			return Kernels{Dir: dir, From: KernelsFromCheckout}
		}
	}
	if exe, err := executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		for _, rel := range InstalledKernels {
			if dir := filepath.Clean(filepath.Join(filepath.Dir(exe), rel)); has(dir) {
				return Kernels{Dir: dir, From: KernelsFromInstalled}
			}
		}
	}
	return Kernels{Tried: tried}
}

// Describe says where the kernels folder is and how it was found, e.g.
// "kernels (the rooftool checkout)".
func (k Kernels) Describe() string {
	switch k.From {
	case KernelsFromFlag, KernelsFromEnv:
		return k.Dir + " (" + k.From + ")"
	case KernelsFromCheckout:
		return k.Dir + " (the rooftool checkout)"
	case KernelsFromInstalled:
		return k.Dir + " (installed with rooftool)"
	}
	return "no kernels folder"
}

// kernelsHowTo says how to give rooftool a kernels folder.
const kernelsHowTo = "run rooftool inside a rooftool clone, install it with its kernels (pip install rooftool, or a release archive with its kernels/ beside the binary), or name the folder with --kernels DIR or $" + KernelsEnv

// NotFound says that no kernels folder was found, where it was looked
// for, and how to name one.
func (k Kernels) NotFound() string {
	return fmt.Sprintf("%s: %s", k.notFound(), kernelsHowTo)
}

// notFound says that no kernels folder was found, and where it was looked for.
func (k Kernels) notFound() string {
	return fmt.Sprintf("no kernels folder with run.py (looked in %s)", strings.Join(k.Tried, ", "))
}
