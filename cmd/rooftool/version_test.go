package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/internal/buildinfo"
)

// TestVersionCommand: rooftool version prints the version, commit, Go
// version and build date the link flags set; --format json has them under
// their keys with the version key; --version still prints the version.
func TestVersionCommand(t *testing.T) {
	for v, val := range map[*string]string{&version: "v1.2.3", &commit: "0123456789abcdef", &date: "2026-11-28T10:00:00Z"} {
		prev := *v
		*v = val
		t.Cleanup(func() { *v = prev })
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"version"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("version: exit %d: %s", code, e.String())
	}
	for _, want := range []string{"rooftool version v1.2.3 (2026-11-28T10:00:00Z)", "commit 0123456789abcdef", runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("version lacks %q:\n%s", want, o.String())
		}
	}
	o.Reset()
	if code := run(context.Background(), []string{"version", "--format", "json"}, &IO{Out: &o, Err: &e}); code != exitOK {
		t.Fatalf("version --format json: exit %d: %s", code, e.String())
	}
	var got map[string]any
	if err := json.Unmarshal(o.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, o.String())
	}
	want := map[string]any{"rooftool_version": float64(buildinfo.JSONVersion), "version": "v1.2.3", "commit": "0123456789abcdef",
		"date": "2026-11-28T10:00:00Z", "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	o.Reset()
	if code := run(context.Background(), []string{"--version"}, &IO{Out: &o, Err: &e}); code != exitOK || !strings.Contains(o.String(), "v1.2.3") {
		t.Errorf("--version: exit %d, %q", code, o.String())
	}
	if code := run(context.Background(), []string{"version", "extra"}, &IO{Out: &o, Err: &e}); code != exitBadArgs {
		t.Errorf("version extra: exit %d, want %d", code, exitBadArgs)
	}
}
