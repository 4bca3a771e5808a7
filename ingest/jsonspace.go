package ingest

import (
	"io"
	"sort"
)

// maxSpaceRun is the longest run of JSON whitespace (outside strings) that
// spaceReader passes on; the rest of a longer run is dropped.
const maxSpaceRun = 4096

// spaceReader passes JSON through, dropping what exceeds maxSpaceRun of each
// run of whitespace outside strings. encoding/json's Decoder keeps a run of
// whitespace in its buffer until the next token and rescans it on every
// refill, so a file of N bytes of whitespace took time quadratic in N (a
// 600 MB gzipped run of spaces hung ingest); with runs capped it is linear.
// Offset maps a position of the passed stream back to the file's.
type spaceReader struct {
	r        io.Reader
	buf      []byte
	inString bool
	escape   bool
	run      int   // whitespace bytes of the current run outside strings
	out      int64 // bytes passed on so far
	// drops: at passed position at[i], dropped[i] bytes (all drops so far)
	// had been left out before it.
	at, dropped []int64
}

func newSpaceReader(r io.Reader) *spaceReader {
	return &spaceReader{r: r, buf: make([]byte, 64<<10)}
}

func (s *spaceReader) Read(p []byte) (int, error) {
	for {
		if len(p) > len(s.buf) {
			p = p[:len(s.buf)]
		}
		n, err := s.r.Read(s.buf[:len(p)])
		w := 0
		for _, c := range s.buf[:n] {
			if s.inString {
				switch {
				case s.escape:
					s.escape = false
				case c == '\\':
					s.escape = true
				case c == '"':
					s.inString = false
				}
			} else {
				switch c {
				case ' ', '\t', '\n', '\r':
					s.run++
					if s.run > maxSpaceRun {
						s.drop()
						continue
					}
				case '"':
					s.inString = true
					s.run = 0
				default:
					s.run = 0
				}
			}
			p[w] = c
			w++
			s.out++
		}
		if w > 0 || err != nil {
			return w, err
		}
	}
}

// drop counts one dropped byte before the current passed position.
func (s *spaceReader) drop() {
	if k := len(s.at); k > 0 && s.at[k-1] == s.out {
		s.dropped[k-1]++
		return
	}
	total := int64(1)
	if k := len(s.dropped); k > 0 {
		total += s.dropped[k-1]
	}
	s.at = append(s.at, s.out)
	s.dropped = append(s.dropped, total)
}

// Offset is the file position of passed position off.
func (s *spaceReader) Offset(off int64) int64 {
	i := sort.Search(len(s.at), func(i int) bool { return s.at[i] > off }) // first drop after off
	if i == 0 {
		return off
	}
	return off + s.dropped[i-1]
}
