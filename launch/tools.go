package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Search roots for the NVIDIA tools; tests replace them.
var (
	ncuGlobs = []string{
		"/usr/local/cuda/bin/ncu",
		"/usr/local/cuda*/bin/ncu",
		"/opt/nvidia/nsight-compute/*/ncu",
		"/usr/local/cuda*/nsight-compute*/ncu",
	}
	smiGlobs = []string{"/usr/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-smi"}
)

// ErrNotFound is returned when a tool is neither given nor found.
var ErrNotFound = errors.New("not found")

// FindNCU returns the ncu binary: override if set, else ncu on PATH, else
// the newest one in the usual NVIDIA folders.
func FindNCU(override string) (string, error) { return findTool("ncu", override, ncuGlobs) }

// FindSMI returns nvidia-smi.
func FindSMI() (string, error) { return findTool("nvidia-smi", "", smiGlobs) }

func findTool(name, override string, globs []string) (string, error) {
	if override != "" {
		p, err := exec.LookPath(override)
		if err != nil {
			return "", fmt.Errorf("%s %q: %w", name, override, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, g := range globs {
		ms, _ := filepath.Glob(g)
		// Newest version first: version folders sort lexically well enough
		// (2025.3.1 > 2024.2.0).
		sort.Sort(sort.Reverse(sort.StringSlice(ms)))
		for _, m := range ms {
			if st, err := os.Stat(m); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return m, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %w on PATH or in %s", name, ErrNotFound, strings.Join(globs, ", "))
}

var versionRE = regexp.MustCompile(`\d+\.\d+(\.\d+)*(\.\d+)?`)

// ToolVersion runs "bin --version" and returns the version number it
// prints (e.g. "2025.3.1.0"), or the last non-empty line.
func ToolVersion(ctx context.Context, bin string, env []string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "--version")
	cmd.Env = mergeEnv(os.Environ(), env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", bin, err, lastLine(string(out)))
	}
	return parseVersion(string(out)), nil
}

func parseVersion(out string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		low := strings.ToLower(l)
		if strings.Contains(low, "version") {
			if m := versionRE.FindString(l[strings.Index(low, "version"):]); m != "" {
				return m
			}
		}
	}
	return lastLine(out)
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}

// NsysLibDir returns the folder with the libraries nsys' importer needs
// (libdw.so.1), in this order: the flag, $ROOFTOOL_NSYS_LIBS, and
// .nsysdeps/root/usr/lib/x86_64-linux-gnu under dir (see DEVICE.md). "" if none.
func NsysLibDir(flag, dir string) string {
	if flag != "" {
		return flag
	}
	if e := os.Getenv("ROOFTOOL_NSYS_LIBS"); e != "" {
		return e
	}
	p := filepath.Join(dir, ".nsysdeps", "root", "usr", "lib", "x86_64-linux-gnu")
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return ""
}

// NsysEnv is the environment for nsys with libs prepended to LD_LIBRARY_PATH.
func NsysEnv(libs string) []string {
	if libs == "" {
		return nil
	}
	v := libs
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		v += ":" + old
	}
	return []string{"LD_LIBRARY_PATH=" + v}
}

// QdstrmImporters returns the QdstrmImporter binaries that belong to nsys.
func QdstrmImporters(nsys string) []string {
	real, err := filepath.EvalSymlinks(nsys)
	if err != nil {
		real = nsys
	}
	d := filepath.Dir(real)
	var out []string
	seen := map[string]bool{}
	for _, g := range []string{
		filepath.Join(d, "QdstrmImporter"),
		filepath.Join(d, "..", "*", "QdstrmImporter"),
		filepath.Join(d, "..", "..", "*", "QdstrmImporter"),
	} {
		ms, _ := filepath.Glob(g)
		for _, m := range ms {
			m = filepath.Clean(m)
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out
}
