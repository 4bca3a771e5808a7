package suggest

import "strings"

// OwnName is a demangled kernel name's own function name: the last
// "::"-separated part of its qualified name, without template arguments,
// parameter list or a leading return type. "void cudnn::gemm::
// computeOffsetsKernel<float, int>(cudnn::gemm::ComputeOffsetsParams)" is
// "computeOffsetsKernel": its namespace (gemm) and its arguments (a
// reduced_divisor, say) say nothing of what the kernel itself does. A
// name that is no C++ signature (a Triton or nvjet kernel) is itself.
func OwnName(name string) string {
	s := stripNested(name, '(', ')')
	s = stripNested(s, '<', '>')
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, " \t"); i >= 0 {
		s = s[i+1:] // "void ns::f" -> "ns::f"
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if s == "" {
		return name
	}
	return s
}

// TemplateArgs is the text between a demangled name's first top-level '<'
// and its matching '>' ("" when none): where a generic wrapper kernel
// (CUTLASS's Kernel, Kernel2, device_kernel) names what it runs.
func TemplateArgs(name string) string {
	if p := strings.IndexByte(name, '('); p >= 0 && p < strings.IndexByte(name+"<", '<') {
		return ""
	}
	start := strings.IndexByte(name, '<')
	if start < 0 {
		return ""
	}
	depth := 0
	for i := start; i < len(name); i++ {
		switch name[i] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return name[start+1 : i]
			}
		}
	}
	return name[start+1:]
}

// stripNested removes every top-level open...close span of s (nested ones
// within it too); an unbalanced open removes the rest.
func stripNested(s string, open, close byte) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == open:
			depth++
		case s[i] == close && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// wrapperKernels are generic kernel templates whose own name says nothing
// of their work: the template arguments name it.
var wrapperKernels = []string{"kernel", "kernel2", "device_kernel", "kernel_with_params"}

// nameWords is the lower-cased text a kernel's classification by name
// reads: its own name, and for a generic wrapper its template arguments.
func nameWords(name string) string {
	own := strings.ToLower(OwnName(name))
	for _, w := range wrapperKernels {
		if own == w {
			return own + " " + strings.ToLower(TemplateArgs(name))
		}
	}
	return own
}
