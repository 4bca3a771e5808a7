//go:build !cgo

package nsys

import (
	"errors"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
)

// TestNsysWithoutCgo: with CGO_ENABLED=0 go-sqlite3 is a stub whose first
// query fails; the error must name the fix, and it is not bad input.
func TestNsysWithoutCgo(t *testing.T) {
	_, err := ingesttest.File(parseExport, nsysRealdata+"gpu4/report.sqlite", ingest.Options{}, nil)
	var ie *ingest.InputError
	if err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=1") || errors.As(err, &ie) {
		t.Fatalf("err = %v, want a build error naming CGO_ENABLED=1", err)
	}
}
