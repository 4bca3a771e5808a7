package ncu

import (
	"strings"

	"github.com/rooftool/rooftool/ingest"
)

// longRule reads a rule row of the details page (one without a metric name)
// of section: the rule's type, speedup type and description as its text,
// and its estimated speedup in % where it states one. ok is false where the
// row names no rule either.
func (p *ncuParser) longRule(rec []string, line int, section string) (m ingest.Metric, ok bool, err error) {
	rule := p.field(rec, ncuColRuleName)
	if rule == "" {
		return ingest.Metric{}, false, nil
	}
	text := p.field(rec, ncuColRuleType)
	if st := p.field(rec, ncuColSpeedupType); st != "" {
		text += " (" + st + ")"
	}
	if d := p.field(rec, ncuColRuleDesc); d != "" {
		text += ": " + d
	}
	m = ingest.Metric{Section: section, Name: "rule:" + rule, Text: text}
	if sp := strings.TrimSpace(p.field(rec, ncuColSpeedup)); sp != "" {
		v, ok := ncuParseNumber(sp)
		if !ok {
			return ingest.Metric{}, false, p.errf(line, "rule %q: %q is not an estimated speedup in %%", rule, sp)
		}
		m.Unit, m.Value, m.Valid = "%", v, true
	}
	return m, true, nil
}

// longMetric reads the value of metric name of kernel id in a metric row of
// section, converted to its base unit (convs caches the conversion of each
// unit as printed), refusing a value that is not a number, a bad duration,
// or a negative duration or count.
func (p *ncuParser) longMetric(rec []string, line int, id, name, section string, convs map[string]unitConv) (ingest.Metric, error) {
	unit := p.field(rec, ncuColMetricUnit)
	c, ok := convs[unit]
	if !ok {
		var err error
		c, err = ncuUnit(unit)
		if err != nil {
			return ingest.Metric{}, p.errf(line, "kernel %s, metric %q, column %d %q: %w", id, name, p.col[ncuColMetricUnit]+1, ncuColMetricUnit, err)
		}
		convs[unit] = c
	}
	raw := p.field(rec, ncuColMetricValue)
	v, valid, text, bad := ncuMetricValue(raw, c)
	if bad {
		return ingest.Metric{}, p.errf(line, "kernel %s, metric %q (unit %q), column %d %q: %q is not a number", id, name, unit, p.col[ncuColMetricValue]+1, ncuColMetricValue, raw)
	}
	if err := ncuCheckDuration(ncuRoles[name], raw, v, valid, c.base); err != nil {
		return ingest.Metric{}, p.errf(line, "kernel %s, metric %q (unit %q), column %d %q: %w", id, name, unit, p.col[ncuColMetricValue]+1, ncuColMetricValue, err)
	}
	if valid && v < 0 && ncuNonNegative(ncuRoles[name], c.base) {
		return ingest.Metric{}, p.errf(line, "kernel %s, metric %q (unit %q), column %q: negative value %s: a duration or count cannot be negative", id, name, unit, ncuColMetricValue, strings.TrimSpace(raw))
	}
	return ingest.Metric{Section: section, Name: name, Unit: c.base, Value: v, Valid: valid, Text: text}, nil
}
