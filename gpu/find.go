package gpu

import (
	"fmt"
	"strings"
)

// NotFoundError is Find's error for a name the catalog lacks. Nearest are
// the entries whose key, name or alias comes closest to it (see Suggest).
type NotFoundError struct {
	Name    string
	Nearest []Spec
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	b.WriteString("not in the catalog")
	if len(e.Nearest) > 0 {
		b.WriteString("; did you mean ")
		for i, s := range e.Nearest {
			switch {
			case i == 0:
			case i == len(e.Nearest)-1:
				b.WriteString(" or ")
			default:
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%s)", s.Key, s.Name)
		}
		b.WriteString("?")
	}
	b.WriteString(" (rooftool gpus lists every GPU of the catalog)")
	return b.String()
}

// Find is Lookup for a name a user typed (--gpu, `rooftool gpus NAME`): the
// entry, or a *NotFoundError naming the nearest entries. Every command that
// takes a GPU name checks it with Find.
func Find(name string) (Spec, error) {
	if s, ok := Lookup(name); ok {
		return s, nil
	}
	return Spec{}, &NotFoundError{Name: name, Nearest: Suggest(name)}
}

// maxSuggestions bounds the entries Suggest returns.
const maxSuggestions = 4

// Suggest returns the catalog entries nearest to a name the catalog lacks,
// compared as Lookup compares (normalizeGPUName) with each entry's key, name
// and aliases: first the entries one of whose names contains it ("a100" in
// "a100sxm480", "4090" in "rtx4090"), in catalog order; where none does,
// those at the smallest edit distance, if that is at most a third of the
// name's length (at least 1: "h300" gives h100-sxm and h200), in catalog
// order. At most
// maxSuggestions; none for a name too short or too far from every entry.
func Suggest(name string) []Spec {
	q := normalizeGPUName(name)
	if len(q) < 2 {
		return nil
	}
	specs := Catalog()
	var contains []Spec
	dist := make([]int, len(specs))
	for i, s := range specs {
		dist[i] = -1
		for _, a := range append([]string{s.Key, s.Name}, s.Aliases...) {
			n := normalizeGPUName(a)
			if strings.Contains(n, q) {
				contains = append(contains, s)
				break
			}
			if d := editDistance(q, n); dist[i] < 0 || d < dist[i] {
				dist[i] = d
			}
		}
	}
	if len(contains) > 0 {
		return contains[:min(len(contains), maxSuggestions)]
	}
	best := max(1, len(q)/3) + 1
	for _, d := range dist {
		if d >= 0 && d < best {
			best = d
		}
	}
	var out []Spec
	for i, s := range specs {
		if dist[i] == best && len(out) < maxSuggestions {
			out = append(out, s)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b (byte-wise: the
// normalised names are ASCII letters and digits).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
