package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"sort"
)

// TableDigests is the SHA-256 (hex) of every file of a run's tables folder
// (TablesDir) in fsys, by file name. The manifest keeps what ingest wrote
// (Manifest.TableDigests), so a report can tell tables written over later
// (an `ingest -o RUN/tables --force`) from the run's own.
func TableDigests(fsys fs.FS) (map[string]string, error) {
	ents, err := fs.ReadDir(fsys, TablesDir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := fsys.Open(TablesDir + "/" + e.Name())
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", TablesDir, e.Name(), err)
		}
		out[e.Name()] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// DigestsDiffer lists, sorted, how the tables now (have) differ from what the
// manifest recorded (want): files changed, gone or added. Empty when equal.
func DigestsDiffer(want, have map[string]string) []string {
	var out []string
	for name, d := range want {
		switch h, ok := have[name]; {
		case !ok:
			out = append(out, name+" gone")
		case h != d:
			out = append(out, name+" changed")
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			out = append(out, name+" added")
		}
	}
	sort.Strings(out)
	return out
}
