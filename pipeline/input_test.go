package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
)

// TestOpenInputKinds: OpenInput tells a run directory, a committed run
// (where the command takes one), a directory of tables and exports apart,
// and names what is wrong with an input of no kind it takes.
func TestOpenInputKinds(t *testing.T) {
	const runs, realdata = "../testdata/runs/", "../testdata/realdata/"
	run := runs + "2026-11-23-h100-140505"
	export := realdata + "gpu4/report.sqlite"
	noTables := t.TempDir()
	copyOf := filepath.Join(t.TempDir(), "copy.sqlite")
	data, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyOf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		args      []string
		opts      InputOptions
		kind      InputKind
		tablesDir string
		err       string // "" ok; else in the message
		badInput  bool   // the error is bad input (exit 2)
	}{
		{"run directory", []string{run}, InputOptions{}, KindRun, run + "/tables", "", false},
		{"its tables", []string{run + "/tables"}, InputOptions{}, KindTables, run + "/tables", "", false},
		{"committed run", []string{"2026-11-23-h100-140505"}, InputOptions{Committed: true}, KindRun, "", "", false},
		{"a name where no committed run is taken", []string{"2026-11-23-h100-140505"}, InputOptions{}, KindExports, "", "", false},
		{"export", []string{export}, InputOptions{GPU: "h100"}, KindExports, "", "", false},
		{"exports", []string{export, realdata + "ESMM-Research/metrics.csv"}, InputOptions{}, KindExports, "", "", false},
		{"no tables", []string{noTables}, InputOptions{}, 0, "", "is a directory without ingested tables", true},
		{"missing among several", []string{export, "no/such.csv"}, InputOptions{Committed: true}, 0, "", "no/such.csv: no such file or directory (of several inputs", true},
		{"missing run", []string{"no-such-run"}, InputOptions{Committed: true}, 0, "", "not a run directory", true},
		{"one export twice", []string{export, copyOf}, InputOptions{}, 0, "", copyOf + ": has the same content as " + export, true},
		{"unknown --gpu", []string{export}, InputOptions{GPU: "no-such-gpu"}, 0, "", `--gpu "no-such-gpu": not in the catalog`, true},
		{"unreadable --ceilings", []string{export}, InputOptions{Ceilings: "no/such.json"}, 0, "", "--ceilings: ", true},
	} {
		in, err := OpenInput(c.args, c.opts)
		if c.err != "" {
			var ie *ingest.InputError
			var be *BadInputError
			bad := errors.As(err, &ie) || errors.As(err, &be)
			if err == nil || !strings.Contains(err.Error(), c.err) || bad != c.badInput {
				t.Errorf("%s: %v (bad input %v), want %q (bad input %v)", c.name, err, bad, c.err, c.badInput)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if in.Kind != c.kind || in.TablesDir != c.tablesDir || (c.kind != KindExports) != (in.Run != nil) {
			t.Errorf("%s: kind %v, tables %q, run %v; want kind %v, tables %q", c.name, in.Kind, in.TablesDir, in.Run != nil, c.kind, c.tablesDir)
		}
		if in.GPU.Name != c.opts.GPU || (c.opts.GPU != "" && in.GPU.Spec.Key == "") {
			t.Errorf("%s: GPU %+v, want %q resolved", c.name, in.GPU, c.opts.GPU)
		}
	}
}
