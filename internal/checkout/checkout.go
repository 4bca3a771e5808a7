// Package checkout finds the rooftool repository that holds the working
// directory: the first of it and its parents with a go.mod of rooftool's
// module. The committed runs (testdata/runs) and the kernels folder of a
// clone are found through it; an installed rooftool run outside a clone
// finds none. It imports no other rooftool package.
package checkout

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module line of rooftool's go.mod, which marks a
// rooftool checkout.
const ModulePath = "github.com/rooftool/rooftool"

// Root returns the root of the rooftool checkout that holds the working
// directory: the first of the working directory and its parents whose
// go.mod declares ModulePath. Where there is none, it returns "" and the
// folders it tried, innermost first.
func Root() (string, []string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", nil
	}
	var tried []string
	for dir := wd; ; dir = filepath.Dir(dir) {
		tried = append(tried, dir)
		if IsRooftoolModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", tried
		}
	}
}

// IsRooftoolModule reports whether the go.mod at p declares ModulePath.
func IsRooftoolModule(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ModulePath
		}
	}
	return false
}
