package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// provenance lists the commands that made a run beyond its first one: the
// invocations that resumed it and, for a merged run, each part with its own
// command, start, GPU unit and resumes. Markdown and HTML print the same
// lines (code spans in backquotes).
func provenance(ri RunInfo) []string {
	var out []string
	for _, inv := range ri.Resumed {
		out = append(out, "resumed: "+invocation(inv))
	}
	for _, p := range ri.MergedFrom {
		l := fmt.Sprintf("part `%s`", p.Run)
		if p.Shard != "" {
			l += " (shard " + p.Shard + ")"
		}
		l += fmt.Sprintf(": `%s`, created %s", shellquote.Join(p.Command...), stamp(p.Created))
		if p.GPUUUID != "" {
			l += " on " + p.GPUUUID
		}
		for _, inv := range p.Resumed {
			l += "; resumed: " + invocation(inv)
		}
		out = append(out, l)
	}
	return out
}

func invocation(inv rundir.Invocation) string {
	s := fmt.Sprintf("`%s`, started %s", shellquote.Join(inv.Command...), stamp(inv.Started))
	if on := strings.TrimSpace(inv.GPU + " " + inv.GPUUUID); on != "" {
		s += " on " + on
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(time.RFC3339)
}
