package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestMarkdownQuoteMath: a claim's quote in report.md shows its TeX math
// as report.html does ($> 1.1\times$ reads "> 1.1×"), and the JSON keeps
// the quote as the claim states it.
func TestMarkdownQuoteMath(t *testing.T) {
	r := syntheticReport(t)
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), `"Fused layer achieves > 1.1× speedup over unfused at d = 768"`) {
		t.Errorf("report.md does not render the quote's math:\n%s", md.String())
	}
	for _, raw := range []string{`\times`, `$>`, `$<`, `$d =`} {
		if strings.Contains(md.String(), raw) {
			t.Errorf("report.md holds raw TeX %q", raw)
		}
	}
	if !strings.Contains(js.String(), `$\u003e 1.1\\times$`) && !strings.Contains(js.String(), `$> 1.1\\times$`) {
		t.Errorf("report.json lost the quote's TeX")
	}
}
