package kineto

import (
	"encoding/json"
	"errors"
	"io"
	"sort"

	"github.com/rooftool/rooftool/ingest"
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

// errValueTooLong stops a JSON value longer than MaxLineBytes.
var errValueTooLong = errors.New("JSON value too long")

// valueLimit passes JSON to a json.Decoder and fails once the decoder has
// read more than MaxLineBytes past mark (the start of the value being
// decoded, set before each Decode): the decoder holds a whole value in
// memory, so one value of a gigabyte would cost a gigabyte.
type valueLimit struct {
	r    io.Reader
	n    int64 // bytes passed on
	mark int64 // decoder offset where the current value starts
}

func (l *valueLimit) Read(p []byte) (int, error) {
	if l.n-l.mark > ingest.MaxLineBytes {
		return 0, errValueTooLong
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// eventKeys are the keys of a trace event rooftool reads; argKeys those
// of its args.
var (
	eventKeys = []string{"ph", "cat", "name", "pid", "tid", "ts", "dur", "args"}
	argKeys   = []string{"device", "context", "stream", "correlation", "grid", "block", "registers per thread", "shared memory"}
)

// repeatedKey reports the first of keys that the JSON object obj (valid
// JSON) gives more than once at its top level.
func repeatedKey(obj []byte, keys []string) (string, bool) {
	var seen uint32 // bit i: keys[i] seen
	depth := 0
	for i := 0; i < len(obj); i++ {
		switch c := obj[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j := i + 1
			esc := false
			for ; j < len(obj) && obj[j] != '"'; j++ {
				if obj[j] == '\\' {
					esc = true
					j++
				}
			}
			str := obj[i : j+1]
			i = j
			if depth != 1 {
				continue
			}
			// A key is a string followed by ':'.
			k := i + 1
			for k < len(obj) && (obj[k] == ' ' || obj[k] == '\t' || obj[k] == '\n' || obj[k] == '\r') {
				k++
			}
			if k >= len(obj) || obj[k] != ':' {
				continue
			}
			name := string(str[1 : len(str)-1])
			if esc {
				if json.Unmarshal(str, &name) != nil {
					continue
				}
			}
			for b, key := range keys {
				if name == key {
					if seen&(1<<b) != 0 {
						return key, true
					}
					seen |= 1 << b
				}
			}
		}
	}
	return "", false
}
