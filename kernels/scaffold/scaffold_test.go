package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/spec"
)

func TestWrite(t *testing.T) {
	parent := t.TempDir()
	dir, files, err := Write(parent, "bias_gelu")
	if err != nil || len(files) != 3 {
		t.Fatalf("Write: %v, %q", err, files)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), placeholder) {
			t.Errorf("%s still holds %s", f, placeholder)
		}
	}
	e, err := spec.LoadDir(dir)
	if err != nil || e.Name != "bias_gelu" || e.Baseline() != "unfused" {
		t.Fatalf("LoadDir: %v, %+v", err, e)
	}
	if _, _, err := Write(parent, "bias_gelu"); !errors.Is(err, ErrExists) {
		t.Errorf("second Write: %v, want ErrExists", err)
	}
	if _, _, err := Write(filepath.Join(parent, "x"), "1abc"); err == nil {
		t.Errorf("name 1abc accepted")
	}
}
