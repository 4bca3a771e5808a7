// Package scaffold writes a new experiment folder outside rooftool's own
// kernels/: spec.yaml, claims.yaml and variants.py of a worked example (a
// GEMM with a fused bias+GELU epilogue against cuBLAS + eager bias + GELU),
// commented field by field. `rooftool new` uses it; kernels/README.md,
// "Bring your own experiment", is the contract the files follow.
package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

//go:embed template/*.tmpl
var templates embed.FS

// placeholder stands for the experiment's name in the templates.
const placeholder = "__NAME__"

// ErrExists is returned by Write for a target folder that exists and is not empty.
var ErrExists = errors.New("exists and is not empty")

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// ValidName checks an experiment name: a letter, then letters, digits, '_'
// or '-' (it names a folder, an NVTX range and the rows of every table).
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("experiment name %q: want a letter, then letters, digits, '_' or '-'", name)
	}
	return nil
}

// Files returns the new experiment's files, file name -> content.
func Files(name string) (map[string][]byte, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	ents, err := fs.ReadDir(templates, "template")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range ents {
		data, err := templates.ReadFile("template/" + e.Name())
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(e.Name(), ".tmpl")] = []byte(strings.ReplaceAll(string(data), placeholder, name))
	}
	return out, nil
}

// Write creates dir/name with the files of Files and returns the folder and
// the paths written, sorted. A folder that exists and is not empty is
// refused with an error wrapping ErrExists; nothing is written then.
func Write(dir, name string) (string, []string, error) {
	files, err := Files(name)
	if err != nil {
		return "", nil, err
	}
	target := filepath.Join(dir, name)
	if ents, err := os.ReadDir(target); err == nil && len(ents) > 0 {
		return target, nil, fmt.Errorf("%s: %w", target, ErrExists)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return target, nil, err
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return target, nil, err
	}
	var written []string
	for f, data := range files {
		p := filepath.Join(target, f)
		// O_EXCL: never overwrite a file that appeared since the check above.
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return target, written, err
		}
		_, werr := fh.Write(data)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return target, written, werr
		}
		written = append(written, p)
	}
	sort.Strings(written)
	return target, written, nil
}
