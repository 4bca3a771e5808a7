package ingest

import (
	"strings"
)

// kernelShortName returns the base name of a demangled kernel name, the way
// nsys' shortName does: no return type, no namespace or class qualifiers, no
// template arguments and no argument list.
//
//	void at::native::vectorized_elementwise_kernel<4, ...>(int, T2, T3) -> vectorized_elementwise_kernel
//	enable_if<!T7, void>::type kernel<int, ...>(T13)                   -> kernel
//	void cutlass::Kernel2<cutlass_80_tensorop_...>(Params)             -> Kernel2
//	ampere_sgemm_128x64_nn                                             -> ampere_sgemm_128x64_nn
//
// Names it cannot take apart (unbalanced brackets) come back trimmed but
// otherwise whole.
func kernelShortName(name string) string {
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
		if i := ncuMatchOpen(s, len(s)-1, '(', ')'); i > 0 {
			s = strings.TrimSpace(s[:i])
		} else if i < 0 {
			return strings.TrimSpace(name)
		}
	}
	// Template arguments: the '<' matching the final '>' (not operator>,
	// operator>> or operator->).
	if strings.HasSuffix(s, ">") && !ncuIsOperatorEnd(s) {
		if i := ncuMatchOpen(s, len(s)-1, '<', '>'); i > 0 {
			s = strings.TrimSpace(s[:i])
		} else if i < 0 {
			return strings.TrimSpace(name)
		}
	}
	// Return type: everything up to the last space at bracket depth 0.
	if i := ncuLastAtDepth0(s, " "); i >= 0 && !strings.HasSuffix(s[:i], "operator") {
		s = s[i+1:]
	}
	// Namespaces and classes: everything up to the last "::" at depth 0.
	if i := ncuLastAtDepth0(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return strings.TrimSpace(name)
	}
	return s
}

func ncuIsOperatorEnd(s string) bool {
	for _, op := range []string{"operator>", "operator>>", "operator->", "operator>=", "operator>>=", "operator<=>"} {
		if strings.HasSuffix(s, op) {
			return true
		}
	}
	return false
}

// ncuMatchOpen returns the index of the open bracket that matches the close
// bracket at s[end], counting only open/close; -1 when unbalanced.
func ncuMatchOpen(s string, end int, open, close byte) int {
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

// ncuLastAtDepth0 returns the index of the last occurrence of sep outside any
// (), <> or [] brackets, or -1.
func ncuLastAtDepth0(s, sep string) int {
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

// ncuNVTXStack parses an ncu NVTX push/pop column value into range names,
// outermost first. ncu prints the thread id and then one quoted entry per
// open range, e.g.
//
//	1234  "<default domain>:exp:none:none:none:none:none:none"  "<default domain>:fused:none:none:none:none:none:none"
//
// Each entry is domain:name followed by `trailing` payload/colour/message
// fields (their count comes from the column header, e.g. 6 for
// "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg").
// Range names may hold ':' themselves; the fixed fields are therefore cut
// from the right.
func ncuNVTXStack(v string, trailing int) []string {
	var out []string
	for {
		i := strings.IndexByte(v, '"')
		if i < 0 {
			break
		}
		v = v[i+1:]
		j := strings.IndexByte(v, '"')
		if j < 0 {
			break
		}
		entry := v[:j]
		v = v[j+1:]
		if name := ncuNVTXEntryName(entry, trailing); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func ncuNVTXEntryName(e string, trailing int) string {
	// Domain: "<default domain>" or a name; it ends at the first ':' after
	// any closing '>'.
	start := 0
	if strings.HasPrefix(e, "<") {
		if k := strings.IndexByte(e, '>'); k >= 0 {
			start = k + 1
		}
	}
	k := strings.IndexByte(e[start:], ':')
	if k < 0 {
		return strings.TrimSpace(e) // no domain: the entry is the name
	}
	rest := e[start+k+1:]
	for n := 0; n < trailing; n++ {
		c := strings.LastIndexByte(rest, ':')
		if c < 0 {
			break
		}
		rest = rest[:c]
	}
	return strings.TrimSpace(rest)
}

// ncuNVTXTrailing counts the fields after the range name in an NVTX
// column header such as
// "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg".
func ncuNVTXTrailing(header string) int {
	parts := strings.Split(header, ":")
	for i, p := range parts {
		if strings.HasSuffix(p, "_Range") {
			return len(parts) - i - 1
		}
	}
	return 0
}
