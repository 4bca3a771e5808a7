package ncu

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// ParseRep reads a binary .ncu-rep report through ncu itself:
//
//	ncu -i FILE --csv --page raw --print-units base
//
// Options.NCU names the ncu binary; otherwise ncu is looked up on PATH and
// in the usual CUDA / Nsight Compute install folders.
func ParseRep(b *ingest.Builder, in ingest.Input) error {
	if _, err := os.Stat(in.Path); err != nil {
		return &ingest.InputError{File: in.Path, Err: err}
	}
	bin, err := findNCU(in.NCU)
	if err != nil {
		return &ingest.InputError{File: in.Path, Err: err}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-i", in.Path, "--csv", "--page", "raw", "--print-units", "base")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = ncuLastLines(stdout.String(), 3)
		}
		return &ingest.InputError{File: in.Path, Err: fmt.Errorf("%s -i %s --csv --page raw --print-units base: %w: %s", bin, in.Path, err, msg)}
	}
	return parseNCU(b, in.Path, &stdout, in.Options)
}

// findNCU returns the ncu binary to use, or an error that says how to do
// without it.
func findNCU(explicit string) (string, error) {
	manual := "or export the report by hand on a machine with Nsight Compute: ncu -i REPORT.ncu-rep --csv --page raw --print-units base > REPORT.csv, and give the CSV"
	if explicit != "" {
		if p, err := exec.LookPath(explicit); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("ncu binary %q (--ncu) not found or not executable; %s", explicit, manual)
	}
	if p, err := exec.LookPath("ncu"); err == nil {
		return p, nil
	}
	var cands []string
	for _, pat := range []string{"/usr/local/cuda/bin/ncu", "/usr/local/cuda-*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu", "/usr/local/NVIDIA-Nsight-Compute*/ncu"} {
		m, _ := filepath.Glob(pat)
		cands = append(cands, m...)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(cands))) // newest version first
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: reading a .ncu-rep needs Nsight Compute's ncu; install it, %s", ErrNotFound, manual)
}

// ErrNotFound is returned (wrapped) when a .ncu-rep is to be read and
// no ncu binary is found on PATH or in the usual install folders.
var ErrNotFound = errors.New("ncu not found on PATH or under /usr/local/cuda*/bin, /opt/nvidia/nsight-compute")

func ncuLastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}
