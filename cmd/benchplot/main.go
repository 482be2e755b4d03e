// Command benchplot draws the PNG plots of docs/performance.md from the
// points `strata bench` writes (JSON: a title, axis labels and series of
// (x, y) points). It is a program of its own, run by `make bench`, so that
// the plotting library and its fonts stay out of the multi-call binary,
// whose every process (each qsub, each job's shepherd) would pay their
// start-up.
//
//	go run ./cmd/benchplot -in points.json -out docs/perf-jobs-per-slot.png
//
// With -cycle it turns the whole-cycle benchmark's output into its table
// and plot instead (cycle.go).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

type data struct {
	Title  string `json:"title"`
	X      string `json:"x"`
	Y      string `json:"y"`
	LogX   bool   `json:"log_x"`
	Series []struct {
		Name   string       `json:"name"`
		Points [][2]float64 `json:"points"`
		Line   bool         `json:"line"`
	} `json:"series"`
}

func main() {
	in := flag.String("in", "", "points (JSON)")
	out := flag.String("out", "", "PNG to write")
	cycle := flag.String("cycle", "", "go test -bench output of BenchmarkCycle (cycle mode)")
	png := flag.String("png", "", "with -cycle: the plot to write")
	flag.Parse()
	var err error
	if *cycle != "" {
		err = runCycle(*cycle, *png)
	} else {
		err = run(*in, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var d data
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = d.Title, d.X, d.Y
	if d.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{}
	}
	p.Y.Min, p.X.Min = 0, 0
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(10), vg.Points(-10)
	p.Add(plotter.NewGrid())
	colors := []color.Color{color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255}, color.RGBA{R: 44, G: 160, B: 44, A: 255}}
	for i, s := range d.Series {
		pts := make(plotter.XYs, len(s.Points))
		for j, xy := range s.Points {
			pts[j].X, pts[j].Y = xy[0], xy[1]
		}
		c := colors[i%len(colors)]
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("series %s: %w", s.Name, err)
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = c, vg.Points(4)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add(s.Name, sc)
		if s.Line && len(pts) > 1 {
			l, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			l.LineStyle.Color, l.LineStyle.Width = c, vg.Points(1.5)
			p.Add(l)
		}
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, out)
}
