package nsys

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest"
)

// nsysGlobs are the install locations Find searches after PATH, newest
// version first within each pattern. The Nsight Compute bundle ships an nsys
// too (seen on the GPU machine, see DEVICE.md).
var nsysGlobs = []string{
	"/opt/nvidia/nsight-systems/*/bin/nsys",
	"/opt/nvidia/nsight-systems/*/target-linux-x64/nsys",
	"/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys",
	"/usr/local/cuda/bin/nsys",
	"/usr/local/cuda-*/bin/nsys",
}

// ErrNotFound is returned (wrapped) by Find when no nsys binary is
// found.
var ErrNotFound = errors.New("nsys not found")

// Find returns the path of the Nsight Systems CLI: override when set
// (it must be an executable file), else nsys on PATH, else the newest one
// under the usual install locations (/opt/nvidia/nsight-systems/*/bin,
// /opt/nvidia/nsight-compute/*/host/target-linux-x64, /usr/local/cuda*/bin).
func Find(override string) (string, error) {
	if override != "" {
		if err := isExecutable(override); err != nil {
			return "", fmt.Errorf("nsys binary %s: %w", override, err)
		}
		return override, nil
	}
	if p, err := exec.LookPath("nsys"); err == nil {
		return p, nil
	}
	for _, g := range nsysGlobs {
		m, _ := filepath.Glob(g)
		sort.Sort(sort.Reverse(versionSort(m)))
		for _, p := range m {
			if isExecutable(p) == nil {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%w on PATH or under %s (install Nsight Systems, or export the report to SQLite by hand on a machine with it: nsys export --type sqlite REPORT.nsys-rep, and give the .sqlite)", ErrNotFound, strings.Join(nsysGlobs, ", "))
}

func isExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	if st.Mode().Perm()&0o111 == 0 {
		return errors.New("is not executable")
	}
	return nil
}

// versionSort orders paths so that numeric path parts compare as numbers
// (2025.10.1 after 2025.9.0).
type versionSort []string

func (v versionSort) Len() int      { return len(v) }
func (v versionSort) Swap(i, j int) { v[i], v[j] = v[j], v[i] }
func (v versionSort) Less(i, j int) bool {
	a, b := splitNum(v[i]), splitNum(v[j])
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] == b[k] {
			continue
		}
		if isDigits(a[k]) && isDigits(b[k]) {
			if len(a[k]) != len(b[k]) {
				return len(a[k]) < len(b[k])
			}
		}
		return a[k] < b[k]
	}
	return len(a) < len(b)
}

func splitNum(s string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || isDigit(s[i]) != isDigit(s[i-1]) {
			out = append(out, s[start:i])
			start = i
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// nsysExportTimeout bounds one nsys export.
var nsysExportTimeout = 20 * time.Minute

// libdwFix is the remedy DEVICE.md records for the QdstrmImporter that
// cannot load libdw.so.1.
const libdwFix = "the nsys importer cannot load libdw.so.1: install libdw1 and libelf1 " +
	"(or unpack them: apt-get download libdw1 libelf1 && dpkg -x <deb> root) and add their " +
	"usr/lib/x86_64-linux-gnu directory to LD_LIBRARY_PATH"

// ParseRep exports an .nsys-rep to SQLite in a temporary directory with
// nsys export and parses that.
func ParseRep(b *ingest.Builder, in ingest.Input) error {
	nsys, err := Find(in.Nsys)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	dir, err := os.MkdirTemp("", "rooftool-nsys-")
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	defer os.RemoveAll(dir)
	base := strings.TrimSuffix(filepath.Base(in.Path), filepath.Ext(in.Path))
	out := filepath.Join(dir, base+".sqlite")
	ctx, cancel := context.WithTimeout(context.Background(), nsysExportTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nsys, "export", "--type", "sqlite", "--output", out, in.Path)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := cmd.Run()
	msg := strings.TrimSpace(buf.String())
	if strings.Contains(msg, "libdw.so.1") {
		return fmt.Errorf("%s: nsys export: %s: %s", in.Path, libdwFix, lastLines(msg, 5))
	}
	if runErr != nil {
		return fmt.Errorf("%s: %s export --type sqlite: %w: %s", in.Path, nsys, runErr, lastLines(msg, 10))
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("%s: nsys export wrote no %s: %s", in.Path, filepath.Base(out), lastLines(msg, 10))
	}
	db, err := openSQLite(out)
	if err != nil {
		return err
	}
	defer db.Close()
	db.path = in.Path // errors name the report, not the temporary export
	p := &nsysParser{b: b, in: in, db: db, file: filepath.Base(in.Path), str: map[int64]string{}}
	return p.run()
}

func lastLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}
