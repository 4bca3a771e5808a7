package cmdprog

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/launch/plan"
)

func TestNewTarget(t *testing.T) {
	for _, tc := range []struct {
		line      string
		argv, env []string
		err       string
	}{
		{line: "python my_bench.py --size 4096", argv: []string{"python", "my_bench.py", "--size", "4096"}},
		{line: `python 'my bench.py' --tag "a b" c\ d`, argv: []string{"python", "my bench.py", "--tag", "a b", "c d"}},
		{line: `TORCH_LOGS=+dynamo CUDA_VISIBLE_DEVICES=1 python x.py A=1`, argv: []string{"python", "x.py", "A=1"}, env: []string{"TORCH_LOGS=+dynamo", "CUDA_VISIBLE_DEVICES=1"}},
		{line: `python x.py '$HOME' "it's"`, argv: []string{"python", "x.py", "$HOME", "it's"}},
		{line: "python x.py | tee log", err: `'|' is shell syntax`},
		{line: "python x.py > log", err: `'>' is shell syntax`},
		{line: `python x.py "$HOME"`, err: `'$' inside "..."`},
		{line: "python 'x.py", err: "unterminated ' quote"},
		{line: "A=1", err: "no program to run"},
		{line: "  ", err: "no program to run"},
	} {
		tg, err := NewTarget(tc.line, "")
		if tc.err != "" {
			var ce *plan.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want a config error with %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(tg.Argv, tc.argv) || !slices.Equal(tg.Env, tc.env) || tg.Line != tc.line {
			t.Errorf("%q: %+v, %v; want argv %q env %q", tc.line, tg, err, tc.argv, tc.env)
		}
	}
}
