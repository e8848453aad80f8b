package timeline

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// svgColor is each state's fill, and the legend's.
var svgColor = map[State]string{
	Waiting:     "#d0d7de",
	Queued:      "#afb8c1",
	Reconciling: "#54aeff",
	CRDs:        "#8250df",
	Stuck:       "#cf222e",
	Remediating: "#fb8f44",
	RetryWait:   "#ffb3b8",
}

// SVG layout, in pixels.
const (
	svgLabel  = 300 // the node names' column
	svgPlot   = 640 // the bars' width
	svgRow    = 20
	svgBar    = 14
	svgTop    = 40 // title and axis
	svgLegend = 30
)

// SVG writes the timeline as a self-contained SVG document: no script, no
// external font or style, one <g class="bar"> per node holding a <rect>
// per span (its state in class and title), an axis in seconds, a legend.
func (t *Timeline) SVG(w io.Writer) error {
	total := t.Total
	if total <= 0 {
		total = time.Second
	}
	scale := float64(svgPlot) / float64(total)
	height := svgTop + len(t.Bars)*svgRow + svgLegend + 10
	width := svgLabel + svgPlot + 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", html.EscapeString(t.Title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="4" y="14" font-size="13" font-weight="bold">%s</text>`+"\n", html.EscapeString(t.Title))
	step := axisStep(total)
	for at := time.Duration(0); at <= total; at += step {
		x := svgLabel + float64(at)*scale
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eaeef2"/>`+"\n", x, svgTop-8, x, svgTop+len(t.Bars)*svgRow)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#57606a">%s</text>`+"\n", x, svgTop-12, axisLabel(at))
	}
	for i, bar := range t.Bars {
		y := svgTop + i*svgRow
		name := bar.Node.Namespace + "/" + bar.Node.Name
		if bar.Node.Kind != "Kustomization" {
			name = bar.Node.Kind + " " + name
		}
		fmt.Fprintf(&b, `<g class="bar" data-node="%s" data-outcome="%s">`+"\n", html.EscapeString(bar.Node.String()), bar.Outcome)
		fmt.Fprintf(&b, `<text x="4" y="%d">%s</text>`+"\n", y+svgBar-3, html.EscapeString(fmt.Sprintf("%d %s", bar.Tier, name)))
		for _, sp := range bar.Spans {
			x := svgLabel + float64(sp.From)*scale
			wd := math.Max(float64(sp.To-sp.From)*scale, 1)
			fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %s–%s</title></rect>`+"\n",
				sp.State, x, y, wd, svgBar, svgColor[sp.State], html.EscapeString(name), sp.State, axisLabel(sp.From), axisLabel(sp.To))
		}
		if bar.Outcome != Ready {
			x := svgLabel + float64(bar.End)*scale
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#cf222e">%s</text>`+"\n", x+3, y+svgBar-3, bar.Outcome)
		}
		b.WriteString("</g>\n")
	}
	y := svgTop + len(t.Bars)*svgRow + 16
	for i, s := range States {
		x := 4 + i*130
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y, svgColor[s], x+16, y+10, s)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// axisStep picks a tick every 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30
// min or an hour: the first that gives at most 10 ticks.
func axisStep(total time.Duration) time.Duration {
	for _, s := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute} {
		if total/s <= 10 {
			return s
		}
	}
	return time.Hour
}

// axisLabel renders an offset as m:ss.
func axisLabel(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
