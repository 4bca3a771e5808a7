package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest/rundir"
)

func TestDecodeCode(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want, err string
	}{
		{"absent", ``, `null`, ""},
		{"null", `null`, `null`, ""},
		{"empty", `{}`, `{}`, ""},
		{"full", `{"knobs": {"ROOFTOOL_MM_IMPL": "tma", "ROOFTOOL_FAST_LAUNCH": 1}, "picks": {"mm:M=1": {"impl": "ptr"}, "x": null}, "launch": "plan"}`,
			`{"knobs":{"ROOFTOOL_FAST_LAUNCH":"1","ROOFTOOL_MM_IMPL":"tma"},"picks":{"mm:M=1":"{\"impl\":\"ptr\"}","x":""},"launch":"plan"}`, ""},
		{"not an object", `"bad"`, `null`, "want an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := decodeCode(json.RawMessage(tc.raw))
			if (err != nil) != (tc.err != "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if got := jsonOf(c); got != tc.want {
				t.Errorf("code = %s, want %s", got, tc.want)
			}
		})
	}
}

// An older runner writes no code record; a malformed one is warned about
// and left out, and the cell still counts.
func TestCodeRecordsMissingOrBad(t *testing.T) {
	for _, tc := range []struct {
		fake string
		warn string
	}{
		{"none", ""},
		{"bad", `n=1.check.json: "code": want an object`},
	} {
		t.Run(tc.fake, func(t *testing.T) {
			cfg, _ := fakeEnv(t)
			t.Setenv("FAKE_CODE", tc.fake)
			cfg.Variants = []string{"good"}
			cfg.Shapes = []string{"n=1"}
			cfg.Passes = []string{rundir.PassCheck, rundir.PassTiming, rundir.PassNCU}
			m, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range cfg.Passes {
				if st := mustPass(t, m, "fake/good/n=1", p, rundir.StatusOK, ""); st.Code != nil {
					t.Errorf("[%s] code = %s, want none", p, jsonOf(st.Code))
				}
			}
			if tc.warn != "" && !hasWarning(m, tc.warn) {
				t.Errorf("warnings = %q, want %q", m.Warnings, tc.warn)
			}
		})
	}
}

// A resumed run keeps the spec snapshot it began with and says when the
// checkout's spec or the ROOFTOOL_* knobs changed since.
func TestResumeSnapshotAndEnv(t *testing.T) {
	cfg, _ := fakeEnv(t)
	kdir := filepath.Join(t.TempDir(), "kernels")
	for _, f := range []string{"run.py", "fake/spec.yaml"} {
		data, err := os.ReadFile(filepath.Join(cfg.KernelsDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := rundir.WriteFileAtomic(filepath.Join(kdir, f), data); err != nil {
			t.Fatal(err)
		}
	}
	cfg.KernelsDir = kdir
	cfg.Variants = []string{"good"}
	cfg.Shapes = []string{"n=1"}
	cfg.Passes = []string{rundir.PassCheck}
	t.Setenv("ROOFTOOL_MM_IMPL", "tma")
	t.Setenv("ROOFTOOL_W_LAYOUT", "nk")
	m, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Options["env.ROOFTOOL_MM_IMPL"] != "tma" || m.Options["env.ROOFTOOL_W_LAYOUT"] != "nk" {
		t.Fatalf("options = %v", m.Options)
	}
	spec := filepath.Join(kdir, "fake", "spec.yaml")
	orig, _ := os.ReadFile(spec)
	if err := os.WriteFile(spec, append(append([]byte{}, orig...), "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kdir, "fake", "claims.yaml"), []byte("claims: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROOFTOOL_MM_IMPL", "ptr")
	os.Unsetenv("ROOFTOOL_W_LAYOUT")
	cfg.Resume = true
	cfg.Passes = []string{rundir.PassTiming}
	m, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"resumed with ROOFTOOL_MM_IMPL=ptr; the run began with ROOFTOOL_MM_IMPL=tma",
		"resumed with ROOFTOOL_W_LAYOUT unset; the run began with ROOFTOOL_W_LAYOUT=nk",
		"fake/spec.yaml differs from the run's snapshot specs/fake/spec.yaml",
	} {
		if !hasWarning(m, w) {
			t.Errorf("warnings = %q, want %q", m.Warnings, w)
		}
	}
	if hasWarning(m, "ROOFTOOL_PICKS") {
		t.Errorf("warned about ROOFTOOL_PICKS: %q", m.Warnings)
	}
	if m.Options["env.ROOFTOOL_MM_IMPL"] != "ptr" {
		t.Errorf("env.ROOFTOOL_MM_IMPL = %q, want this invocation's", m.Options["env.ROOFTOOL_MM_IMPL"])
	}
	if _, ok := m.Options["env.ROOFTOOL_W_LAYOUT"]; ok {
		t.Errorf("env.ROOFTOOL_W_LAYOUT kept after it was unset")
	}
	for f, want := range map[string]string{"spec.yaml": string(orig), "claims.yaml": "claims: []\n"} {
		got, err := os.ReadFile(filepath.Join(cfg.RunDir, filepath.FromSlash(rundir.SpecsPath("fake", f))))
		if err != nil || string(got) != want {
			t.Errorf("snapshot %s = %q (%v), want %q", f, got, err, want)
		}
	}
}

// The manifest records paths the runner was given relative to the run
// directory or the working directory, never as folders of one machine.
func TestRecordedPath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	r := &Runner{dir: run}
	for _, c := range []struct{ in, want string }{
		{filepath.Join(run, "raw", "picks.json"), "raw/picks.json"},
		{filepath.Join(wd, ".nsysdeps", "root", "usr", "lib"), ".nsysdeps/root/usr/lib"},
		{"/opt/elsewhere/libs", "/opt/elsewhere/libs"},
		{"tma", "tma"},
		{filepath.Dir(wd), filepath.Dir(wd)}, // the working directory's parent is not beneath it
	} {
		if got := r.recordedPath(c.in); got != c.want {
			t.Errorf("recordedPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
