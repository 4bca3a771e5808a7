package pipeline

import (
	"context"
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

// OpenRunsTables opens the tables of each run that args name (Open, then
// OpenTables with the default allocator), in order. On an error it
// releases the tables already opened and returns the error as it is (a
// run that does not read as one is a *RunInputError). The caller releases
// the tables.
func OpenRunsTables(ctx context.Context, args ...string) ([]*Tables, error) {
	var out []*Tables
	for _, a := range args {
		run, err := Open(a)
		if err == nil {
			var t *Tables
			if t, err = OpenTables(ctx, run, nil); err == nil {
				out = append(out, t)
				continue
			}
		}
		for _, t := range out {
			t.Release()
		}
		return nil, err
	}
	return out, nil
}
