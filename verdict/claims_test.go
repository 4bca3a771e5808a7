package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/spec"
)

// seedsDir is the folder of the seed documents the claims cite: the one
// $ROOFTOOL_SEEDS names, else shared/seeds beside the repository, i.e.
// ../shared/seeds from the module root (the nearest directory above the
// test's working directory that holds go.mod).
func seedsDir() string {
	if d := os.Getenv("ROOFTOOL_SEEDS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "..", "shared", "seeds") // reports/ is one level below the module root
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "seeds")
		}
		up := filepath.Dir(dir)
		if up == dir {
			return filepath.Join("..", "..", "shared", "seeds")
		}
		dir = up
	}
}

// Every claim quotes its seed document exactly, at the line it cites, and
// names a metric and an operator the verdicts know.
func TestClaimsCiteTheirSeeds(t *testing.T) {
	exps, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, m := range Metrics {
		known[m] = true
	}
	dir := seedsDir()
	_, statErr := os.Stat(dir)
	for _, e := range exps {
		if len(e.Claims) == 0 {
			t.Errorf("%s: claims.yaml has no claim", e.Name)
		}
		ids := map[string]bool{}
		for _, c := range e.Claims {
			if ids[c.ID] {
				t.Errorf("%s: claim id %s twice", e.Name, c.ID)
			}
			ids[c.ID] = true
			if !known[c.Metric] {
				t.Errorf("%s/%s: metric %q unknown", e.Name, c.ID, c.Metric)
			}
			switch c.Op {
			case ">", ">=", "<", "<=":
			default:
				t.Errorf("%s/%s: op %q", e.Name, c.ID, c.Op)
			}
			inSpec := map[string]bool{}
			for _, s := range e.AllShapes() {
				inSpec[s] = true
			}
			for _, s := range c.Shapes {
				vars, err := spec.ParseShape(s)
				if err != nil || spec.CanonicalShape(vars, e.Vars) != s {
					t.Errorf("%s/%s: shape %q is not canonical", e.Name, c.ID, s)
				}
				if !inSpec[s] {
					t.Errorf("%s/%s: shape %q is not among spec.yaml's shapes: it would never be run", e.Name, c.ID, s)
				}
			}
			if statErr != nil {
				continue
			}
			files, _ := filepath.Glob(filepath.Join(dir, c.Seed+"_*.txt"))
			if len(files) != 1 {
				t.Errorf("%s/%s: seed %s: %d documents in %s", e.Name, c.ID, c.Seed, len(files), dir)
				continue
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			if c.Line < 1 || c.Line > len(lines) {
				t.Errorf("%s/%s: line %d outside %s", e.Name, c.ID, c.Line, files[0])
				continue
			}
			if !strings.Contains(lines[c.Line-1], c.Quote) {
				t.Errorf("%s/%s: %s line %d does not contain the quote\n  line:  %s\n  quote: %s", e.Name, c.ID, filepath.Base(files[0]), c.Line, lines[c.Line-1], c.Quote)
			}
		}
	}
	if statErr != nil {
		t.Skipf("no seed documents: looked in %s (set ROOFTOOL_SEEDS to the folder that holds them): quotes not checked against them", dir)
	}
}
