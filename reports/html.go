package reports

import (
	"bytes"
	"html"
	"io"
)

// WriteHTML writes report.html: the Markdown report in a minimal page with
// a monospace <pre> block, so the aligned tables read as they do in a
// terminal, and the plots shown below it.
func WriteHTML(w io.Writer, r *Report) error {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
	b.WriteString(html.EscapeString("rooftool report: " + r.Run.Name))
	b.WriteString("</title>\n<style>body{font-family:sans-serif;margin:2em}pre{font-size:12px;line-height:1.35}img{max-width:100%}</style>\n</head><body>\n<pre>")
	b.WriteString(html.EscapeString(md.String()))
	b.WriteString("</pre>\n")
	for _, e := range r.Experiments {
		for _, p := range e.Plots {
			b.WriteString("<figure><img src=\"" + html.EscapeString(p.Path) + "\" alt=\"" + html.EscapeString(p.Title) + "\"><figcaption>" + html.EscapeString(p.Title) + "</figcaption></figure>\n")
		}
	}
	b.WriteString("</body></html>\n")
	_, err := w.Write(b.Bytes())
	return err
}
