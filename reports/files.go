package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Existing are the report files (report.md, report.json, report.html)
// outDir holds, by format.
func Existing(outDir string) map[string]bool {
	have := map[string]bool{}
	for _, f := range Formats {
		if st, err := os.Stat(filepath.Join(outDir, FileName(f))); err == nil && st.Mode().IsRegular() {
			have[f] = true
		}
	}
	return have
}

// RemoveStale removes from outDir the report files of an earlier report
// (before, as Existing found them) whose format was not written this time:
// left, they would show that report's verdicts beside the new ones. It
// returns the paths it removed, those before the one it failed to remove.
func RemoveStale(outDir string, before map[string]bool, written []string) ([]string, error) {
	var removed []string
	for _, f := range Formats {
		if !before[f] || slices.Contains(written, f) {
			continue
		}
		path := filepath.Join(outDir, FileName(f))
		if err := os.Remove(path); err != nil {
			return removed, fmt.Errorf("removing the stale %s: %w", path, err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}
