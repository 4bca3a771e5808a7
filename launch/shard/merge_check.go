package shard

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// partFiles is what a merge records of one part (MergedPart.Files): the
// content hash of each file its manifest lists (listed) that came back,
// by the path the merged run in dst names it under (ren: copyRaw's
// renames). A listed file that is not in dst, plain or gzipped (a report
// the device left behind), is not recorded.
func partFiles(dst string, listed map[string]bool, ren map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, rel := range slices.Sorted(maps.Keys(listed)) {
		name := renamedRaw(ren, rel)
		p, ok := existing(dst, name)
		if !ok {
			continue
		}
		h, err := contentHash(p)
		if err != nil {
			return nil, err
		}
		out[name] = h
	}
	return out, nil
}

// existing is the file a run names rel by: rel itself, else rel.gz (how a
// committed run keeps its exports); false when neither is there.
func existing(dir, rel string) (string, bool) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	for _, q := range []string{p, p + ".gz"} {
		if st, err := os.Stat(q); err == nil && st.Mode().IsRegular() {
			return q, true
		}
	}
	return "", false
}

// contentHash is the SHA-256 (hex) of a file's bytes as ingest reads
// them: a gzipped file's content, so that gzip -9 -n in place after the
// merge keeps its hash.
func contentHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		defer zr.Close()
		r = zr
	}
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ErrMergeUnrecorded says that a merged run's manifest records none of its
// parts' files (a merge made before merges recorded them): without its
// shards nothing can check it.
var ErrMergeUnrecorded = errors.New("the merge recorded none of its parts' files (merged_from[].files): without the shards it cannot be checked")

// profilerReport reports whether f is a profiler's own report (.ncu-rep,
// .nsys-rep): ingest never reads one (it reads the CSV or SQLite export
// made from it), and committed runs and the device calls' tarballs leave
// them out, so a merge check lets one be absent (one that is there must
// still hold what its part gave).
func profilerReport(f string) bool {
	return strings.HasSuffix(f, ".ncu-rep") || strings.HasSuffix(f, ".nsys-rep")
}

// CheckMerged checks the merged run in dir against what its merge
// recorded of each part (MergedPart.Files), so that the shards can go once
// it passes: every file a part gave the merge is in the run with the same
// content (plain or gzipped), no path was given by two parts, no cell names
// a file no part gave, and each cell names files of one part only (the
// shard that measured it). A run that is no merge passes. A profiler's own
// report may be absent (profilerReport). The error lists
// every fault, the file and the part named.
func CheckMerged(dir string) error {
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return err
	}
	if len(m.MergedFrom) == 0 {
		return nil
	}
	var errs []error
	owner := map[string]int{}
	for i, p := range m.MergedFrom {
		if len(p.Files) == 0 {
			return fmt.Errorf("merge check of %s: part %s: %w", dir, p.Run, ErrMergeUnrecorded)
		}
		for _, f := range slices.Sorted(maps.Keys(p.Files)) {
			if j, ok := owner[f]; ok {
				errs = append(errs, fmt.Errorf("%s: given by parts %s and %s", f, m.MergedFrom[j].Run, p.Run))
				continue
			}
			owner[f] = i
			q, ok := existing(dir, f)
			if !ok && profilerReport(f) {
				continue // ingest reads the CSV or SQLite export beside it
			}
			if !ok {
				errs = append(errs, fmt.Errorf("%s (part %s): not in the run", f, p.Run))
				continue
			}
			h, err := contentHash(q)
			if err != nil {
				errs = append(errs, err)
			} else if h != p.Files[f] {
				errs = append(errs, fmt.Errorf("%s: its content is not what part %s gave the merge", f, p.Run))
			}
		}
	}
	for _, c := range m.Cells {
		part, first := -1, ""
		for _, pass := range slices.Sorted(maps.Keys(c.Passes)) {
			st := c.Passes[pass]
			files := slices.Clone(st.Files)
			for _, r := range st.Replays {
				files = append(files, r.Files...)
			}
			for _, f := range files {
				i, ok := owner[f]
				if !ok {
					if _, there := existing(dir, f); there {
						errs = append(errs, fmt.Errorf("cell %s/%s/%s: %s pass names %s, which no part gave the merge", c.Experiment, c.Variant, c.Shape, pass, f))
					}
					continue // a report the device kept (.ncu-rep, .nsys-rep)
				}
				if part < 0 {
					part, first = i, f
				} else if i != part {
					errs = append(errs, fmt.Errorf("cell %s/%s/%s: %s pass names %s of part %s, and %s of part %s",
						c.Experiment, c.Variant, c.Shape, pass, f, m.MergedFrom[i].Run, first, m.MergedFrom[part].Run))
				}
			}
		}
	}
	if len(errs) > 0 {
		const most = 20
		n := len(errs)
		if n > most {
			errs = append(errs[:most], fmt.Errorf("and %d more", n-most))
		}
		msg := strings.ReplaceAll(errors.Join(errs...).Error(), "\n", "; ")
		return fmt.Errorf("merge check of %s: %d faults: %s", dir, n, msg)
	}
	return nil
}

// NotRunDirError is a path given to Merge as a run directory that is no
// directory.
type NotRunDirError struct{ Dir string }

func (e *NotRunDirError) Error() string { return e.Dir + ": not a run directory" }

// CheckRunDirs fails with *NotRunDirError on the first of dirs that is
// missing or no directory.
func CheckRunDirs(dirs []string) error {
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return &NotRunDirError{Dir: d}
		}
	}
	return nil
}
