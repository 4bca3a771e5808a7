package ingest

// The names a kernel row is given beside the one its source prints: its
// short name, and the cell its range path names.

import (
	"cmp"
	"strings"
)

// ShortName returns the base name of a demangled kernel name (the kernels
// table's short_name), the way nsys' shortName does: no return type, no namespace or class qualifiers, no
// template arguments and no argument list.
//
//	void at::native::vectorized_elementwise_kernel<4, ...>(int, T2, T3) -> vectorized_elementwise_kernel
//	enable_if<!T7, void>::type kernel<int, ...>(T13)                   -> kernel
//	void cutlass::Kernel2<cutlass_80_tensorop_...>(Params)             -> Kernel2
//	ampere_sgemm_128x64_nn                                             -> ampere_sgemm_128x64_nn
//
// Names it cannot take apart (unbalanced brackets) come back trimmed but
// otherwise whole.
func ShortName(name string) string {
	s := strings.TrimSpace(name)
	if s == "" {
		return ""
	}
	// Trailing qualifiers after the argument list.
	for _, q := range []string{" const", " volatile", " &&", " &"} {
		s = strings.TrimSuffix(s, q)
	}
	// Argument list: the '(' matching the final ')'.
	if strings.HasSuffix(s, ")") && !strings.HasSuffix(s, "operator()") {
		if i := matchOpen(s, len(s)-1, '(', ')'); i > 0 {
			s = strings.TrimSpace(s[:i])
		} else if i < 0 {
			return strings.TrimSpace(name)
		}
	}
	// Template arguments: the '<' matching the final '>' (not operator>,
	// operator>> or operator->).
	if strings.HasSuffix(s, ">") && !isOperatorEnd(s) {
		if i := matchOpen(s, len(s)-1, '<', '>'); i > 0 {
			s = strings.TrimSpace(s[:i])
		} else if i < 0 {
			return strings.TrimSpace(name)
		}
	}
	// Return type: everything up to the last space at bracket depth 0.
	if i := lastAtDepth0(s, " "); i >= 0 && !strings.HasSuffix(s[:i], "operator") {
		s = s[i+1:]
	}
	// Namespaces and classes: everything up to the last "::" at depth 0.
	if i := lastAtDepth0(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return strings.TrimSpace(name)
	}
	return s
}

// isOperatorEnd reports whether s ends in an operator whose name ends in >.
func isOperatorEnd(s string) bool {
	for _, op := range []string{"operator>", "operator>>", "operator->", "operator>=", "operator>>=", "operator<=>"} {
		if strings.HasSuffix(s, op) {
			return true
		}
	}
	return false
}

// matchOpen returns the index of the open bracket that matches the close
// bracket at s[end], counting only open/close; -1 when unbalanced.
func matchOpen(s string, end int, open, close byte) int {
	depth := 0
	for i := end; i >= 0; i-- {
		switch s[i] {
		case close:
			depth++
		case open:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// lastAtDepth0 returns the index of the last occurrence of sep outside any
// (), <> or [] brackets, or -1.
func lastAtDepth0(s, sep string) int {
	depth := 0
	last := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '<', '[':
			depth++
		case ')', '>', ']':
			if depth > 0 {
				depth--
			}
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			last = i
		}
	}
	return last
}

// CellFromPath derives experiment, variant and shape from the components of
// a range path (outermost first): when it has three or more and the last
// looks like a shape (k=v,...), the last three are experiment/variant/shape.
// The fields o sets override.
func CellFromPath(comps []string, o Options) (exp, variant, shape string) {
	if n := len(comps); n >= 3 && looksLikeShape(comps[n-1]) {
		exp, variant, shape = comps[n-3], comps[n-2], comps[n-1]
	}
	return cmp.Or(o.Experiment, exp), cmp.Or(o.Variant, variant), cmp.Or(o.Shape, shape)
}

// looksLikeShape reports whether s is a canonical shape string:
// comma-separated key=value pairs with identifier keys, e.g. "B=16,T=512".
func looksLikeShape(s string) bool {
	if s == "" {
		return false
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" || v == "" {
			return false
		}
		for i, r := range k {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}
