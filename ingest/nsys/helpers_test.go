package nsys

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/internal/ingesttest"
	"github.com/rooftool/rooftool/internal/golden"
)

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

const nsysRealdata = ingesttest.Realdata

// parseExport parses an nsys export as the dispatcher (ingest/detect) does:
// a gzipped SQLite export through ParseGz, an .nsys-rep or .qdrep that is
// no SQLite file through ParseRep, any other through Parse.
func parseExport(b *ingest.Builder, in ingest.Input) error {
	head := make([]byte, 16)
	if f, err := os.Open(in.Path); err == nil {
		n, _ := io.ReadFull(f, head)
		head = head[:n]
		f.Close()
	}
	switch ext := strings.ToLower(filepath.Ext(in.Path)); {
	case (ext == ".nsys-rep" || ext == ".qdrep") && !bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return ParseRep(b, in)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return ParseGz(b, in)
	}
	return Parse(b, in)
}
