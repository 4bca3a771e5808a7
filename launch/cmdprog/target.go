package cmdprog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/kernels"
	"github.com/rooftool/rooftool/launch/plan"
)

// A Target is a program of the user's own that rooftool profile --cmd runs
// under each pass in place of kernels/run.py. The program marks its cells
// with the helper kernels/common/marks.py (rooftool_marks on its
// PYTHONPATH), whose ROOFTOOL_MARKS_* settings say what a run of it does:
// list its cells, time them, or run each once inside its NVTX range
// experiment/variant/shape/ (kernels/README.md, "Profile a program of your
// own").
type Target struct {
	Line   string   // the command line as given: the manifest records it exactly
	Argv   []string // Line split into words (no shell runs it)
	Env    []string // Line's leading NAME=value words, set for the program
	Claims string   // claims.yaml judging the program's cells; "" for none
}

// The helper's settings (kernels/common/marks.py ENV_*).
const (
	marksMode  = "ROOFTOOL_MARKS_MODE"
	marksOut   = "ROOFTOOL_MARKS_OUT"
	marksCells = "ROOFTOOL_MARKS_CELLS"
	marksReps  = "ROOFTOOL_MARKS_REPS"
)

// Where a --cmd run keeps its own files, relative to the run directory.
const (
	// MarksHelperDir holds the package rooftool_marks the program imports
	// (marks.py and the records.py it writes its records with), put first
	// on the program's PYTHONPATH; a plain run of the program can use it too.
	MarksHelperDir = "marks"
	// MarksRawDir holds the discovery run's cell list and log.
	MarksRawDir = "raw/marks"
	// MarksListed is the cell list in MarksRawDir (marks.py MARKS_FILE):
	// the cells the list run met, in order.
	MarksListed = "marks.jsonl"
)

// Passes are the passes a --cmd program gets by default: every pass but
// the check (the program's own assertions are its check).
var Passes = []string{rundir.PassTiming, rundir.PassNCU, rundir.PassRange, rundir.PassNsys}

// shellSyntax are the characters a shell would act on outside quotes; no
// shell runs the command, so they are refused rather than passed on.
const shellSyntax = "|&;<>()$`*?[]{}~"

// NewTarget splits line into the program's words as a POSIX shell would
// (blanks separate words; '...' is literal; "..." and \ escape), without
// running a shell: pipes, redirections, variables and globs are refused.
// Leading NAME=value words become the program's environment.
func NewTarget(line, claims string) (*Target, error) {
	words, err := splitWords(line)
	if err != nil {
		return nil, plan.ConfigErrorf("--cmd %q: %w", line, err)
	}
	t := &Target{Line: line, Claims: claims}
	for len(words) > 0 && isAssignment(words[0]) {
		t.Env = append(t.Env, words[0])
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, plan.ConfigErrorf("--cmd %q: no program to run", line)
	}
	t.Argv = words
	return t, nil
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					return nil, fmt.Errorf("%q inside \"...\": no shell expands it; quote it with '...'", s[i])
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("trailing \\")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case strings.IndexByte(shellSyntax, c) >= 0:
			return nil, fmt.Errorf("%q is shell syntax, and no shell runs the command: quote it, put the pipeline in a script, or give --cmd \"sh -c '...'\"", c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// MarksEnv is the environment of one run of the program beyond the runner's
// (the launcher's runnerEnvVars): the helper's mode, its output folder
// (records go to out/<experiment>/<variant>/<shape>...), the cells to mark
// (nil: every one), the repetitions (reps 0: the helper's default), the
// helper of the run directory runDir first on PYTHONPATH (before the
// command line's PYTHONPATH= where it gives one), and the command line's
// other NAME=value words, which come last and so win.
func (t *Target) MarksEnv(mode, out, runDir string, cells []string, reps int) []string {
	env := []string{marksMode + "=" + mode, marksOut + "=" + out}
	if cells != nil {
		env = append(env, marksCells+"="+strings.Join(cells, "\n"))
	}
	if reps > 0 {
		env = append(env, marksReps+"="+strconv.Itoa(reps))
	}
	// The helper goes first on PYTHONPATH, also where the command line sets one.
	old := os.Getenv("PYTHONPATH")
	var own []string
	for _, kv := range t.Env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			old = v
		} else {
			own = append(own, kv)
		}
	}
	pp := filepath.Join(runDir, MarksHelperDir)
	if old != "" {
		pp += string(os.PathListSeparator) + old
	}
	env = append(env, "PYTHONPATH="+pp)
	return append(env, own...)
}

// WriteHelper writes the package rooftool_marks into the run directory
// runDir: marks.py as its __init__.py and records.py and gpuid.py beside
// it, from the kernels folder kernelsDir where it has them (a checkout),
// else from the runner built into rooftool.
func WriteHelper(runDir, kernelsDir string) error {
	var src fs.FS = kernels.RunnerFS()
	if d := kernelsDir; d != "" {
		if _, err := os.Stat(filepath.Join(d, "common", "marks.py")); err == nil {
			src = os.DirFS(d)
		}
	}
	pkg := filepath.Join(runDir, MarksHelperDir, "rooftool_marks")
	for from, to := range map[string]string{"common/marks.py": "__init__.py", "common/records.py": "records.py", "common/gpuid.py": "gpuid.py"} {
		data, err := fs.ReadFile(src, from)
		if err != nil {
			return fmt.Errorf("the marks helper: %w", err)
		}
		if err := rundir.WriteFileAtomic(filepath.Join(pkg, to), data); err != nil {
			return fmt.Errorf("the marks helper: %w", err)
		}
	}
	return nil
}
