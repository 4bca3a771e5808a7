package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVenvHas: doctor adds the .venv hint only where setup made a .venv in
// the working directory and the interpreter checked is another one.
func TestVenvHas(t *testing.T) {
	t.Chdir(t.TempDir())
	if venvHas("python3") {
		t.Error("no .venv here, yet venvHas(python3)")
	}
	if err := os.MkdirAll(filepath.Join(".venv", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(".venv", "bin", "python"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if !venvHas("python3") {
		t.Error(".venv exists and python3 is checked: want the hint")
	}
	if venvHas(".venv/bin/python") || venvHas("./.venv/bin/python") {
		t.Error("the .venv interpreter itself is checked: no hint")
	}
}
