package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/testdata"
)

// Open is the one way a command gets a run by what its user typed: a run
// directory (one `rooftool profile`, `merge` or `ingest -o` wrote), or the
// name of a committed run ("" = the default one, embedded in the binary;
// another from testdata/runs of the rooftool repository that holds the
// working directory). An arg that is neither is an *ingest.InputError
// naming where it was looked for; a run that fails to open is the error
// rundir.Open gives.
func Open(arg string) (*rundir.Run, error) {
	why := "not a run directory"
	if arg != "" {
		st, err := os.Stat(arg)
		switch {
		case err == nil && !st.IsDir():
			return nil, &ingest.InputError{File: arg, Err: errors.New("not a run directory (a file)")}
		case err == nil:
			return rundir.Open(arg)
		case errors.Is(err, fs.ErrNotExist):
			why += " (no such file or directory)"
		}
	}
	name, fsys, err := testdata.Run(arg)
	var notFound *testdata.NotFoundError
	switch {
	case errors.As(err, &notFound):
		return nil, &ingest.InputError{File: arg, Err: fmt.Errorf("%s, and %v", why, err)}
	case err != nil && arg == "":
		return nil, fmt.Errorf("no run named and %w", err)
	case err != nil:
		return nil, err
	}
	return rundir.OpenFS(name, fsys)
}

// IsCommitted reports whether name is a run committed under
// testdata/runs: the embedded one, or one of the repository that holds the
// working directory.
func IsCommitted(name string) bool {
	for _, r := range testdata.Runs() {
		if r == name {
			return true
		}
	}
	return false
}
