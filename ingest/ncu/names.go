package ncu

import (
	"strings"
)

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
