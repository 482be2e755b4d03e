package main

// The cycle mode: the output of the whole-cycle benchmark (server/schedglue
// BenchmarkCycle, run with -count for several samples) becomes a PNG of
// cycle time against queued jobs and a Markdown table of the medians.
//
//	go run ./cmd/benchplot -cycle bench.txt -png docs/cycle-time.png > table.md

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// sample is one benchmark line: a size and its per-cycle figures.
type sample struct {
	queued, vnodes int
	metrics        map[string]float64 // "ns/op", "cpu-ms", "fill-ms", ...
}

var (
	lineRE  = regexp.MustCompile(`^BenchmarkCycle/queued=(\d+)/vnodes=(\d+)\S*\s+\d+\s+(.*)$`)
	placeRE = regexp.MustCompile(`^BenchmarkPlace50kJobs50kVnodes\S*\s+\d+\s+(.*)$`)
)

// metrics parses "value unit value unit ..." of a benchmark line.
func metrics(text string) (map[string]float64, error) {
	out := map[string]float64{}
	f := strings.Fields(text)
	for i := 0; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, fmt.Errorf("benchmark figures %q: %w", text, err)
		}
		out[f[i+1]] = v
	}
	return out, nil
}

// parse returns the cycle samples (queued and vnodes set) and the samples
// of OpenPBS's case (BenchmarkPlace50kJobs50kVnodes, sizes 0).
func parse(r io.Reader) (cycles, place []sample, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := placeRE.FindStringSubmatch(sc.Text()); m != nil {
			s := sample{}
			if s.metrics, err = metrics(m[1]); err != nil {
				return nil, nil, err
			}
			place = append(place, s)
			continue
		}
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		s := sample{}
		s.queued, _ = strconv.Atoi(m[1])
		s.vnodes, _ = strconv.Atoi(m[2])
		if s.metrics, err = metrics(m[3]); err != nil {
			return nil, nil, err
		}
		cycles = append(cycles, s)
	}
	return cycles, place, sc.Err()
}

// size is the medians of one size's samples.
type size struct {
	queued, vnodes, runs int
	med                  map[string]float64
}

func medians(samples []sample) []size {
	by := map[[2]int][]sample{}
	for _, s := range samples {
		k := [2]int{s.queued, s.vnodes}
		by[k] = append(by[k], s)
	}
	var out []size
	for k, ss := range by {
		z := size{queued: k[0], vnodes: k[1], runs: len(ss), med: map[string]float64{}}
		for name := range ss[0].metrics {
			var vals []float64
			for _, s := range ss {
				vals = append(vals, s.metrics[name])
			}
			slices.Sort(vals)
			mid := len(vals) / 2
			z.med[name] = vals[mid]
			if len(vals)%2 == 0 {
				z.med[name] = (vals[mid-1] + vals[mid]) / 2
			}
		}
		out = append(out, z)
	}
	slices.SortFunc(out, func(a, b size) int { return a.queued - b.queued })
	return out
}

func table(w io.Writer, sizes []size, place []size) {
	fmt.Fprintln(w, "| jobs submitted | vnodes | queued in the measured cycle | samples | cycle, CPU time | cycle, wall time | of which Input (wall) | of which Schedule (wall) | first cycle filling the empty cluster (wall) |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, z := range sizes {
		fmt.Fprintf(w, "| %d | %d | %.0f | %d | %.0f ms | %.0f ms | %.0f ms | %.0f ms | %.0f ms |\n", z.queued, z.vnodes, z.med["queued"], z.runs,
			z.med["cpu-ms"], z.med["ns/op"]/1e6, z.med["input-ms"], z.med["schedule-ms"], z.med["fill-ms"])
	}
	for _, z := range place {
		fmt.Fprintf(w, "\nOpenPBS's case, one cycle placing %.0f 1-cpu jobs on 50,000 empty vnodes (BenchmarkPlace50kJobs50kVnodes, %d samples): **%.0f ms** CPU time, %.0f ms wall time; OpenPBS took 88 s.\n",
			z.med["runs"], z.runs, z.med["cpu-ms"], z.med["ns/op"]/1e6)
	}
}

func plotPNG(path string, sizes []size) error {
	p := plot.New()
	p.Title.Text = "One scheduling cycle (strict_ordering, backfill_depth 10)"
	p.X.Label.Text = "queued jobs"
	p.Y.Label.Text = "seconds per cycle"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	cpu, wall := plotter.XYs{}, plotter.XYs{}
	for _, z := range sizes {
		cpu = append(cpu, plotter.XY{X: float64(z.queued), Y: z.med["cpu-ms"] / 1e3})
		wall = append(wall, plotter.XY{X: float64(z.queued), Y: z.med["ns/op"] / 1e9})
	}
	add := func(xys plotter.XYs, name string, c color.Color, shape draw.GlyphDrawer) error {
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, s.Color, s.Shape = c, c, shape
		p.Add(l, s)
		p.Legend.Add(name, l, s)
		return nil
	}
	if err := add(cpu, "CPU time", color.RGBA{B: 200, A: 255}, draw.CircleGlyph{}); err != nil {
		return err
	}
	if err := add(wall, "wall time (shared 2-core machine)", color.RGBA{R: 200, A: 255}, draw.TriangleGlyph{}); err != nil {
		return err
	}
	// The targets of issue 12 and OpenPBS's published figure.
	targets := plotter.XYs{{X: 1e5, Y: 1}, {X: 1e6, Y: 10}}
	ts, err := plotter.NewScatter(targets)
	if err != nil {
		return err
	}
	ts.Shape, ts.Color = draw.CrossGlyph{}, color.Black
	p.Add(ts)
	p.Legend.Add("targets (1 s at 100k x 10k vnodes, 10 s at 1M x 50k)", ts)
	pbs, err := plotter.NewScatter(plotter.XYs{{X: 5e4, Y: 88}})
	if err != nil {
		return err
	}
	pbs.Shape, pbs.Color = draw.SquareGlyph{}, color.RGBA{G: 140, A: 255}
	p.Add(pbs)
	p.Legend.Add("OpenPBS: 50,000 jobs on 50,000 vnodes", pbs)
	p.Legend.Top, p.Legend.Left = false, false
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// runCycle is the cycle mode: go test -bench output of BenchmarkCycle in,
// the medians table on stdout and the plot in png.
func runCycle(in, png string) error {
	r := io.Reader(os.Stdin)
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	samples, place, err := parse(r)
	if err != nil || len(samples) == 0 {
		return fmt.Errorf("no BenchmarkCycle lines (%v)", err)
	}
	sizes := medians(samples)
	table(os.Stdout, sizes, medians(place))
	if png != "" {
		return plotPNG(png, sizes)
	}
	return nil
}
