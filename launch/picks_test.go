package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every runner process of a run, whatever its pass, shares one picks file,
// so that a variant's implementation choice made in the check pass holds
// under timing, ncu and nsys.
func TestRunnerProcessesSharePicks(t *testing.T) {
	cfg, _ := fakeEnv(t)
	cfg.Variants = []string{"good"}
	picksLog := filepath.Join(t.TempDir(), "picks.jsonl")
	t.Setenv("FAKE_PICKS_LOG", picksLog)
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(picksLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	abs, _ := filepath.Abs(cfg.RunDir)
	want := filepath.Join(abs, "raw", "picks.json")
	modes := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec [2]string
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec[0] == "env" {
			continue // device query, no kernels
		}
		modes[rec[0]] = true
		if rec[1] != want {
			t.Errorf("runner %s: ROOFTOOL_PICKS=%q, want %q", rec[0], rec[1], want)
		}
	}
	for _, m := range []string{"check", "time", "profile"} {
		if !modes[m] {
			t.Errorf("no %s runner process seen (saw %v)", m, modes)
		}
	}
}
