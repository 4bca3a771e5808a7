package ingest

import (
	"io"
	"strings"
)

// ncuRawCol is one metric column of a raw page.
type ncuRawCol struct {
	j       int     // field index
	name    int     // dictionary index of the metric name
	role    ncuRole // kernel/gpu column the metric also fills
	conv    unitConv
	printed string // unit as printed in the units row
	unit    int    // dictionary index of conv.base
}

// parseRaw reads a --page raw export: one row per kernel, one column per
// metric, a units row after the header.
func (p *ncuParser) parseRaw() error {
	mb, err := newNCUMetricBatch(p.b)
	if err != nil {
		return err
	}
	var cols []ncuRawCol
	for j, h := range p.hdr {
		if ncuIdentityCols[h] || ncuIsNVTXColumn(h) {
			continue
		}
		cols = append(cols, ncuRawCol{j: j, role: ncuRoles[h], name: mb.index(mbMetric, h)})
	}
	setUnits := func(units []string) {
		for i := range cols {
			u := ""
			if units != nil {
				u = units[cols[i].j]
			}
			cols[i].printed = u
			cols[i].conv = convertUnit(u)
			cols[i].unit = mb.index(mbUnit, cols[i].conv.base)
		}
	}
	secIdx := mb.index(mbSection, "")
	emptyText := mb.index(mbText, "")
	idCol := p.col[ncuColID]
	first, rows := true, 0
	for {
		rec, err := p.r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.csvErr(err)
		}
		line := p.lineOf()
		if len(rec) != len(p.hdr) {
			what := "truncated"
			if len(rec) > len(p.hdr) {
				what = "overlong"
			}
			if first && strings.TrimSpace(rec[0]) == "" {
				return p.errf(line, "units row has %d fields, header has %d (units row does not match the header)", len(rec), len(p.hdr))
			}
			return p.errf(line, "%s raw-page row: %d fields, header has %d", what, len(rec), len(p.hdr))
		}
		if first {
			first = false
			if strings.TrimSpace(rec[idCol]) == "" {
				setUnits(rec)
				continue
			}
			setUnits(nil) // an export without a units row
		}
		if strings.TrimSpace(rec[idCol]) == "" {
			return p.errf(line, "row has an empty %q: expected a kernel id (only the row after the header may hold units)", ncuColID)
		}
		nk, err := p.identity(rec, line)
		if err != nil {
			return err
		}
		for i := range cols {
			c := &cols[i]
			s := rec[c.j]
			if s == "" {
				continue // metric not collected for this kernel
			}
			v, valid, text, bad := ncuMetricValue(s, c.conv)
			if bad {
				mb.reset()
				return p.errf(line, "kernel %s, column %q (unit %q): %q is not a number", nk.idText, p.hdr[c.j], c.printed, s)
			}
			ti := emptyText
			if text != "" {
				ti = mb.index(mbText, text)
			}
			mb.add(secIdx, c.name, c.unit, v, valid, ti)
			if c.role != roleNone {
				nk.apply(c.role, v, valid, c.conv.base, text)
			}
		}
		p.finish(nk)
		mb.flush(p.b.AddKernel(nk.k))
		rows++
	}
	if rows == 0 {
		return p.errf(p.lines.line, "ncu CSV has a header but no kernel rows")
	}
	p.writeGPUs()
	return nil
}

// parseLong reads the details page and the long --metrics export: one row
// per (kernel, metric), rule rows, ragged rows.
func (p *ncuParser) parseLong() error {
	need := []string{ncuColID, ncuColKernel, ncuColMetricName, ncuColMetricValue}
	minLen := 0
	for _, n := range need {
		if i := p.col[n]; i+1 > minLen {
			minLen = i + 1
		}
	}
	_, hasKernelTime := p.col[ncuColKernelTime]
	var kernels []*ncuKernel
	byID := map[string]*ncuKernel{}
	convs := map[string]unitConv{}
	idCol := p.col[ncuColID]
	for {
		rec, err := p.r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.csvErr(err)
		}
		line := p.lineOf()
		if len(rec) > len(p.hdr) {
			return p.errf(line, "row has %d fields, header has %d", len(rec), len(p.hdr))
		}
		if len(rec) < minLen {
			return p.errf(line, "truncated row: %d fields, the %q column is field %d", len(rec), ncuColMetricValue, p.col[ncuColMetricValue]+1)
		}
		id := strings.TrimSpace(rec[idCol])
		if id == "" {
			return p.errf(line, "row has an empty %q: expected a kernel id", ncuColID)
		}
		nk := byID[id]
		if nk == nil {
			if nk, err = p.identity(rec, line); err != nil {
				return err
			}
			byID[id] = nk
			kernels = append(kernels, nk)
			if hasKernelTime {
				if t := strings.TrimSpace(p.field(rec, ncuColKernelTime)); t != "" {
					nk.metrics = append(nk.metrics, Metric{Name: ncuColKernelTime, Text: t})
				}
			}
		}
		section := p.field(rec, ncuColSection)
		if label := p.field(rec, ncuColBodyLabel); label != "" {
			section += ": " + label
		}
		name := p.field(rec, ncuColMetricName)
		if name == "" {
			rule := p.field(rec, ncuColRuleName)
			if rule == "" {
				continue // neither a metric nor a rule: nothing to keep
			}
			text := p.field(rec, ncuColRuleType)
			if st := p.field(rec, ncuColSpeedupType); st != "" {
				text += " (" + st + ")"
			}
			if d := p.field(rec, ncuColRuleDesc); d != "" {
				text += ": " + d
			}
			m := Metric{Section: section, Name: "rule:" + rule, Text: text}
			if sp := strings.TrimSpace(p.field(rec, ncuColSpeedup)); sp != "" {
				v, ok := ncuParseNumber(sp)
				if !ok {
					return p.errf(line, "rule %q: %q is not an estimated speedup in %%", rule, sp)
				}
				m.Unit, m.Value, m.Valid = "%", v, true
			}
			nk.metrics = append(nk.metrics, m)
			continue
		}
		unit := p.field(rec, ncuColMetricUnit)
		c, ok := convs[unit]
		if !ok {
			c = convertUnit(unit)
			convs[unit] = c
		}
		raw := p.field(rec, ncuColMetricValue)
		v, valid, text, bad := ncuMetricValue(raw, c)
		if bad {
			return p.errf(line, "kernel %s, metric %q (unit %q): %q is not a number", id, name, unit, raw)
		}
		nk.metrics = append(nk.metrics, Metric{Section: section, Name: name, Unit: c.base, Value: v, Valid: valid, Text: text})
		if role := ncuRoles[name]; role != roleNone {
			nk.apply(role, v, valid, c.base, text)
		}
	}
	if len(kernels) == 0 {
		return p.errf(p.lines.line, "ncu CSV has a header but no metric rows")
	}
	for _, nk := range kernels {
		p.finish(nk)
		id := p.b.AddKernel(nk.k)
		for _, m := range nk.metrics {
			m.KernelID = id
			p.b.AddMetric(m)
		}
	}
	p.writeGPUs()
	return nil
}
