package analysis

import (
	"errors"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/kernels"
)

func analyze(t *ingest.Tables, exps []*kernels.Experiment, opts Options) (*Run, error) {
	return nil, errors.New("analysis: not written yet")
}
