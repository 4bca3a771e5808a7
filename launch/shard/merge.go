package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rooftool/rooftool/cellkey"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/runtables"
)

// MergeOptions tune Merge.
type MergeOptions struct {
	// AllowMixed merges runs made with a different git commit, specs
	// snapshot, plan hash or GPU model (each difference is a warning).
	AllowMixed bool
	Command    []string // the merge command, recorded in the manifest
	Version    string   // rooftool's version
	Now        func() time.Time
}

// Merge combines shard run directories (rooftool profile --shard) into the
// new run directory out: the union of their cells, their raw exports
// (an export whose path two runs share with different bytes is renamed
// shard<I>-<name> and the manifest follows), the specs snapshot,
// ceilings.json where every run that has one has the same, and tables
// ingested again from the merged manifest, which records the content hash
// of each file a part gave (MergedPart.Files, what CheckMerged checks the
// run against once the shards are gone). The run is built in a temporary
// folder beside out and renamed into place. Runs that do not belong
// together, cells measured in two runs and an existing out are
// ConfigErrors; the returned strings are warnings.
func Merge(out string, dirs []string, opt MergeOptions) (*rundir.Manifest, []string, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if len(dirs) < 2 {
		return nil, nil, plan.ConfigErrorf("merge: want at least two runs, got %d", len(dirs))
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, nil, err
	}
	if ents, err := os.ReadDir(outAbs); err == nil && len(ents) > 0 {
		return nil, nil, plan.ConfigErrorf("-o %s: exists and is not empty: merge writes a new run", out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, plan.ConfigErrorf("-o %s: %v", out, err)
	}
	ms, specs, err := readParts(out, outAbs, dirs)
	if err != nil {
		return nil, nil, err
	}
	warns, err := checkParts(dirs, ms, specs, opt.AllowMixed)
	if err != nil {
		return nil, nil, err
	}

	if err := os.MkdirAll(filepath.Dir(outAbs), 0o755); err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(outAbs), "."+filepath.Base(outAbs)+".merge-*")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp) // gone after the rename; left over only on failure
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, nil, err
	}

	merged := &rundir.Manifest{
		Tool:         "rooftool",
		Version:      opt.Version,
		Command:      opt.Command,
		Created:      opt.Now().UTC(),
		GitCommit:    ms[0].GitCommit,
		GPURequested: ms[0].GPURequested,
		GPU:          ms[0].GPU,
		Versions:     map[string]string{},
		Options:      map[string]string{},
		PlanHash:     ms[0].PlanHash,
	}
	claimed := map[string]bool{} // raw paths the merged manifest already names
	for i, m := range ms {
		d := dirs[i]
		listed := listedFiles(m)
		ren, err := copyRaw(d, tmp, i, m.Shard, listed, claimed)
		if err != nil {
			return nil, nil, fmt.Errorf("merge: copy %s: %w", d, err)
		}
		if err := copyTree(filepath.Join(d, rundir.SpecsDir), filepath.Join(tmp, rundir.SpecsDir), false); err != nil {
			return nil, nil, fmt.Errorf("merge: copy %s: %w", filepath.Join(d, rundir.SpecsDir), err)
		}
		warns = append(warns, addPart(merged, m, ren, d, dirs[0], outAbs)...)
		if merged.MergedFrom[i].Files, err = partFiles(tmp, listed, ren); err != nil {
			return nil, nil, fmt.Errorf("merge: %s: %w", d, err)
		}
	}
	var ordered []string
	for _, p := range rundir.AllPasses {
		if slices.Contains(merged.Passes, p) {
			ordered = append(ordered, p)
		}
	}
	merged.Passes = ordered
	merged.Versions["rooftool"] = ms[0].Versions["rooftool"]
	merged.Options["run_dir"] = out
	merged.Options["merged"] = fmt.Sprint(len(dirs)) + " runs"

	if w, err := mergeCeilings(dirs, tmp); err != nil {
		return nil, nil, err
	} else if w != "" {
		warns = append(warns, w)
	}
	for _, w := range warns {
		if !slices.Contains(merged.Warnings, w) {
			merged.Warnings = append(merged.Warnings, w)
		}
	}
	if err := merged.Write(tmp); err != nil {
		return nil, nil, err
	}
	m, iwarns, err := runtables.Reingest(tmp)
	warns = append(warns, iwarns...)
	if err != nil {
		return nil, warns, err
	}
	if err := os.Remove(outAbs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, warns, err
	}
	if err := os.Rename(tmp, outAbs); err != nil {
		return nil, warns, err
	}
	return m, warns, nil
}

// mergeCeilings writes ceilings.json into the merged run dst where every
// run that measured it agrees; where they differ it writes none and
// returns the warning.
func mergeCeilings(dirs []string, dst string) (string, error) {
	var ceil []byte
	ceilOK := true
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, rundir.CeilingsFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("merge: %w", err)
		}
		if ceil != nil && !bytes.Equal(ceil, data) {
			ceilOK = false
		}
		ceil = data
	}
	if ceil != nil && !ceilOK {
		return "the runs' ceilings.json differ: the merged run has none (rooftool ceilings measures it again)", nil
	}
	if ceil != nil {
		return "", rundir.WriteFileAtomic(filepath.Join(dst, rundir.CeilingsFile), ceil)
	}
	return "", nil
}

// checkParts says whether the runs merged belong together: one git commit,
// plan, GPU model and specs snapshot (unless allowMixed: then warnings),
// one shard count with each part once (a missing part a warning), and no
// cell in two runs.
func checkParts(dirs []string, ms []*rundir.Manifest, specs []map[string]string, allowMixed bool) ([]string, error) {
	var warns []string
	mixed := func(what string, get func(i int) string) error {
		for i := 1; i < len(dirs); i++ {
			if get(i) == get(0) {
				continue
			}
			msg := fmt.Sprintf("%s differ: %s has %q, %s has %q", what, dirs[0], get(0), dirs[i], get(i))
			if !allowMixed {
				return plan.ConfigErrorf("merge: %s (--allow-mixed merges them anyway)", msg)
			}
			warns = append(warns, "merged runs' "+msg)
		}
		return nil
	}
	if err := errors.Join(
		mixed("git commits", func(i int) string { return ms[i].GitCommit }),
		mixed("plan hashes", func(i int) string { return ms[i].PlanHash }),
		mixed("GPU models", func(i int) string { return ms[i].GPU.Name }),
	); err != nil {
		return nil, err
	}
	for i := 1; i < len(dirs); i++ {
		for j := range i {
			f := specsConflict(specs[j], specs[i])
			if f == "" {
				continue
			}
			msg := fmt.Sprintf("specs snapshots differ: %s/%s is not the same in %s and %s", rundir.SpecsDir, f, dirs[j], dirs[i])
			if !allowMixed {
				return nil, plan.ConfigErrorf("merge: %s (--allow-mixed merges them anyway, keeping the first)", msg)
			}
			warns = append(warns, "merged runs' "+msg)
		}
	}
	// Shards: one count, each part once; a missing part is a warning.
	count := 0
	seen := map[string]string{}
	for i, m := range ms {
		if m.Shard == "" {
			continue
		}
		s, err := Parse(m.Shard)
		if err != nil {
			return nil, plan.ConfigErrorf("merge: %s: shard %q: %v", dirs[i], m.Shard, err)
		}
		if count != 0 && s.Count != count && !allowMixed {
			return nil, plan.ConfigErrorf("merge: %s is shard %s, another run is of %d parts", dirs[i], m.Shard, count)
		}
		count = s.Count
		if d, ok := seen[m.Shard]; ok {
			return nil, plan.ConfigErrorf("merge: %s and %s are both shard %s", d, dirs[i], m.Shard)
		}
		seen[m.Shard] = dirs[i]
	}
	for i := 1; i <= count; i++ {
		if _, ok := seen[fmt.Sprintf("%d/%d", i, count)]; !ok {
			warns = append(warns, fmt.Sprintf("merged run lacks shard %d/%d", i, count))
		}
	}
	cellOf := map[cellkey.Key]string{}
	for i, m := range ms {
		for _, c := range m.Cells {
			if d, ok := cellOf[c.Key()]; ok {
				return nil, plan.ConfigErrorf("merge: cell %s is in both %s and %s", c.Key(), d, dirs[i])
			}
			cellOf[c.Key()] = dirs[i]
		}
	}
	return warns, nil
}

// mergedCells are a part's cells as the merged manifest holds them: each
// with the GPU it ran on (the part's where the cell names none) and the
// merged paths (copyRaw's renames) of its passes' and range replays' files.
func mergedCells(m *rundir.Manifest, ren map[string]string) []rundir.Cell {
	var out []rundir.Cell
	for _, c := range m.Cells {
		nc := rundir.Cell{Experiment: c.Experiment, Variant: c.Variant, Shape: c.Shape, Passes: map[string]rundir.PassStatus{}, GPU: c.GPU}
		if nc.GPU == nil && (m.GPU.UUID != "" || m.Options[rundir.OptionGPUIndex] != "") {
			nc.GPU = &rundir.CellGPU{Index: m.Options[rundir.OptionGPUIndex], UUID: m.GPU.UUID, Name: m.GPU.Name}
		}
		for p, st := range c.Passes {
			st.Files = renamedAll(ren, st.Files)
			if len(st.Replays) > 0 {
				rs := slices.Clone(st.Replays)
				for k := range rs {
					rs[k].Files = renamedAll(ren, rs[k].Files)
				}
				st.Replays = rs
			}
			nc.Passes[p] = st
		}
		out = append(out, nc)
	}
	return out
}

// listedFiles is every raw file a manifest names: each pass's files and each
// range replay's.
func listedFiles(m *rundir.Manifest) map[string]bool {
	out := map[string]bool{}
	for _, c := range m.Cells {
		for _, st := range c.Passes {
			for _, f := range st.Files {
				out[f] = true
			}
			for _, r := range st.Replays {
				for _, f := range r.Files {
					out[f] = true
				}
			}
		}
	}
	return out
}

// renamedAll maps renamedRaw over fs (nil stays nil).
func renamedAll(ren map[string]string, fs []string) []string {
	if len(fs) == 0 {
		return fs
	}
	out := make([]string, len(fs))
	for j, f := range fs {
		out[j] = renamedRaw(ren, f)
	}
	return out
}

// renamedRaw is the merged path of a file a shard's manifest lists: where
// copyRaw renamed it, its new path; where it renamed the file's gzipped
// twin (a manifest names x.sqlite, which ingest reads from x.sqlite.gz
// where only that exists), the new path without ".gz"; else f.
func renamedRaw(ren map[string]string, f string) string {
	if n, ok := ren[f]; ok {
		return n
	}
	if n, ok := ren[f+".gz"]; ok {
		return strings.TrimSuffix(n, ".gz")
	}
	return f
}

// copyRaw copies run dir's raw/ tree into dst's. A file whose path dst
// already holds with other bytes is written as shard<I>-<name> (I: the
// run's shard index, else its position from 1), and so is every file the
// shard's manifest lists (listed) under a path an earlier shard's cells
// already name (claimed), whatever its bytes, and whether or not it came
// back (a device script leaves the .ncu-rep/.nsys-rep behind): a merged
// manifest names each cell's own exports. The returned map takes each
// renamed path (slash-separated, relative to the run) to its new one;
// claimed gains this shard's listed paths as the merged manifest will name
// them.
func copyRaw(dir, dst string, pos int, shard string, listed, claimed map[string]bool) (map[string]string, error) {
	tag := fmt.Sprint(pos + 1)
	if s, err := Parse(shard); err == nil {
		tag = fmt.Sprint(s.Index)
	}
	rename := func(rel string) string { return path.Join(path.Dir(rel), "shard"+tag+"-"+path.Base(rel)) }
	ren := map[string]string{}
	taken := func(rel string) bool { // listed here and named by an earlier shard
		base := strings.TrimSuffix(rel, ".gz")
		return (listed[rel] && claimed[rel]) || (base != rel && listed[base] && claimed[base])
	}
	for rel := range listed {
		if claimed[rel] {
			ren[rel] = rename(rel)
		}
	}
	root := filepath.Join(dir, rundir.RawDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(r)
		target := filepath.Join(dst, r)
		if taken(rel) {
			ren[rel] = rename(rel)
			target = filepath.Join(dst, filepath.FromSlash(ren[rel]))
		} else if _, err := os.Stat(target); err == nil {
			same, err := sameBytes(p, target)
			if err != nil || same {
				return err
			}
			ren[rel] = rename(rel)
			target = filepath.Join(dst, filepath.FromSlash(ren[rel]))
		}
		return copyFile(p, target)
	})
	for rel := range listed {
		claimed[renamedRaw(ren, rel)] = true
	}
	return ren, err
}

// copyTree copies the files under src into dst (src may be absent); with
// overwrite false a file dst already has is kept.
func copyTree(src, dst string, overwrite bool) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == src {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		r, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		t := filepath.Join(dst, r)
		if _, err := os.Stat(t); err == nil && !overwrite {
			return nil
		}
		return copyFile(p, t)
	})
	return err
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func sameBytes(a, b string) (bool, error) {
	ha, err := fileHash(a)
	if err != nil {
		return false, err
	}
	hb, err := fileHash(b)
	return ha == hb, err
}

func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// treeHashes maps each file under dir (slash-separated, relative) to a
// hash of its bytes; empty when dir does not exist.
func treeHashes(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		h, err := fileHash(p)
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(r)] = h
		return nil
	})
	return out, err
}

// specsConflict names the first snapshot file both runs hold with other
// bytes ("" when none: shards of other experiments hold other files).
func specsConflict(a, b map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if h, ok := a[k]; ok && h != b[k] {
			return k
		}
	}
	return ""
}
