package reports

import (
	"strings"
	"testing"

	"github.com/rooftool/rooftool/verdict"
)

// The HTML legends go into report.html as they are: outside their <code>
// spans they hold no markup and nothing to escape, and every row a format
// has renders to text without a line of its own left empty.
func TestLegendsRender(t *testing.T) {
	for name, rows := range map[string][]legendRow{"decisions": decisionsLegend, "shape": shapeLegend, "quality": qualityLegend, "limits": limitsLegend} {
		h := string(htmlLegend(rows))
		bare := strings.NewReplacer("<code>", "", "</code>", "").Replace(h)
		if strings.ContainsAny(bare, "<>&") {
			t.Errorf("%s: HTML legend has markup or an unescaped character outside <code>: %q", name, h)
		}
		for _, f := range []legendFormat{legendMarkdown, legendHTML} {
			out := f.render(rows)
			if out == "" || strings.Contains(out, "\n\n") || strings.Contains(out, "  ") || strings.Contains(out, " \n") || strings.Contains(out, "\n ") {
				t.Errorf("%s in format %d: empty, or an empty line or doubled space: %q", name, f, out)
			}
		}
	}
	if md := legendMarkdown.render(decisionsLegend); !strings.Contains(md, "whole "+verdict.ConfidenceLabel+" interval") || verdict.ConfidenceLabel != "95%" {
		t.Errorf("decisions legend %q does not state the %s interval", md, verdict.ConfidenceLabel)
	}
}
