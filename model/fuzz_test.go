package model_test

// Fuzz targets for the parsers of model: sizes, durations, resource values,
// select and place, job and array ids, limits. Each checks what a caller
// relies on (a canonical form that parses back to itself, PBS errors,
// bounded work), not only the absence of panics. `make fuzz` runs them;
// `go test` runs their seeds and testdata/fuzz corpora.

import (
	"math"
	"math/big"
	"reflect"
	"strconv"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
)

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"16gb", "512mb", "1234b", "8GB", "1kw", "0", "2p", "1.5gb", "9223372036854775807b", "8388607pb", "8388608pb", " 4tb ", "1x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n int64
		var err error
		fuzzcheck.Bounded(t, len(s), func() { n, err = model.ParseSize(s) })
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		canon := model.FormatSize(n)
		back, err := model.ParseSize(canon)
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, FormatSize %q parses back as %d, %v", s, n, canon, back, err)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"01:00:00", "3600", "1:30", "100:00:00", "0.5", "10.4", "1:xx", "1e3", "-5", "9223372036854775807", "99999999999999999999", "153722867280912930:0:0", "1:2:3:4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n int64
		var err error
		fuzzcheck.Bounded(t, len(s), func() { n, err = model.ParseDuration(s) })
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseDuration(%q) = %d, negative", s, n)
		}
		canon := model.FormatDuration(n)
		back, err := model.ParseDuration(canon)
		if err != nil || back != n {
			t.Fatalf("ParseDuration(%q) = %d, FormatDuration %q parses back as %d, %v", s, n, canon, back, err)
		}
	})
}

// fuzzDefs is the builtin complex plus one custom resource of each type, so
// that select chunks exercise every normalization.
func fuzzDefs() model.ResourceDefs {
	return model.BuiltinResources().With(
		model.ResourceDef{Name: "scratch", Type: model.TypeSize, Flags: "hn"},
		model.ResourceDef{Name: "weight", Type: model.TypeFloat, Flags: "hn"},
		model.ResourceDef{Name: "bigmem", Type: model.TypeBoolean, Flags: "h"},
		model.ResourceDef{Name: "lic", Type: model.TypeLong, Flags: "q"},
		model.ResourceDef{Name: "hold", Type: model.TypeDuration, Flags: "hn"},
	)
}

// FuzzNormalize checks resource value normalization: the canonical form is
// a fixed point, and a consumable's amount is a finite number.
func FuzzNormalize(f *testing.F) {
	for _, s := range []struct{ name, v string }{{"ncpus", "8"}, {"mem", "16GB"}, {"walltime", "1:00"}, {"bigmem", "t"}, {"weight", "0.5"},
		{"weight", "NaN"}, {"weight", "-Inf"}, {"weight", "1e308"}, {"ncpus", "-1"}, {"aoe", "rhel"}, {"hold", "99999999999999999999"}} {
		f.Add(s.name, s.v)
	}
	defs := fuzzDefs()
	f.Fuzz(func(t *testing.T, name, v string) {
		def, ok := defs[name]
		if !ok {
			return
		}
		norm, err := def.Normalize(v)
		if err != nil {
			return
		}
		again, err := def.Normalize(norm)
		if err != nil || again != norm {
			t.Fatalf("%s: Normalize(%q) = %q, which normalizes to %q, %v", name, v, norm, again, err)
		}
		if def.Numeric() {
			amt, err := def.Amount(norm)
			if err != nil || math.IsNaN(amt) || math.IsInf(amt, 0) {
				t.Fatalf("%s: Amount(%q) = %v, %v", name, norm, amt, err)
			}
		}
	})
}

func FuzzParseSelect(f *testing.F) {
	for _, s := range []string{"2:ncpus=8:mem=16gb+1:ncpus=1", "1:ncpus=1", "ncpus=4:mem=8GB", "2:mem=1gb", "1:ncpus=1:ncpus=2",
		"2:ncpus", "1:foo=1", "3:host=n1:bigmem=true", "1:weight=0.25:scratch=1tb:hold=1:30", "9223372036854775807:ncpus=1+1:ncpus=1",
		"0:ncpus=1", "1:lic=2", "+", "1:aoe=rhel"} {
		f.Add(s)
	}
	defs := fuzzDefs()
	f.Fuzz(func(t *testing.T, s string) {
		var sel model.Select
		var err error
		fuzzcheck.Bounded(t, len(s), func() { sel, err = model.ParseSelect(s, defs) })
		if err != nil {
			fuzzcheck.PBSError(t, err, model.PBSEBadAttrVal, model.PBSEUnknownResource)
			return
		}
		if n := sel.NodeCount(); n < len(sel) {
			t.Fatalf("ParseSelect(%q): node count %d for %d chunks", s, n, len(sel))
		}
		canon := sel.String()
		back, err := model.ParseSelect(canon, defs)
		if err != nil || !reflect.DeepEqual(back, sel) {
			t.Fatalf("ParseSelect(%q) = %+v; its String %q parses back as %+v, %v", s, sel, canon, back, err)
		}
	})
}

func FuzzParsePlace(f *testing.F) {
	for _, s := range []string{"scatter:excl", "pack", "free:shared:group=switch", "share", "vscatter:exclhost", "everywhere", ":excl", "pack:pack", "group="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := model.ParsePlace(s)
		if err != nil {
			fuzzcheck.PBSError(t, err, model.PBSEBadAttrVal)
			return
		}
		back, err := model.ParsePlace(p.String())
		if err != nil || back != p {
			t.Fatalf("ParsePlace(%q) = %+v; its String %q parses back as %+v, %v", s, p, p.String(), back, err)
		}
	})
}

func FuzzParseJobID(f *testing.F) {
	for _, s := range []string{"123", "123.pbssvr", "102.pbssvr.example.com", "7[]", "7[3].svr", "7[3-9:2]", "R45.svr", "S12", "M3@srv", "1@",
		"1234567890123", "R1[2]", "12[", "1.", "1x", "[]", "999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := model.ParseJobID(s)
		if err != nil {
			return
		}
		if id.Seq < 0 || id.Prefix != "" && id.Array {
			t.Fatalf("ParseJobID(%q) = %+v", s, id)
		}
		full := id.Full("svr")
		back, err := model.ParseJobID(full)
		want := id
		if want.Server == "" {
			want.Server = "svr"
		}
		if err != nil || back != want {
			t.Fatalf("ParseJobID(%q) = %+v; Full %q parses back as %+v, %v", s, id, full, back, err)
		}
	})
}

// FuzzParseArraySpec checks qsub -J: the size of an accepted range is the
// exact number of its indices (computed here without overflow), and the
// canonical form parses back to the same range.
func FuzzParseArraySpec(f *testing.F) {
	for _, s := range []string{"1-10", "1-9:2%3", "0-99%5", "5-1", "1", "a-b", "1-5:0", "1-5%0", "-1-5", "1-10:20", "0-9223372036854775806:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a *model.ArrayState
		var err error
		fuzzcheck.Bounded(t, len(s), func() { a, err = model.ParseArraySpec(s) })
		if err != nil {
			return
		}
		if a.Start < 0 || a.Start >= a.End || a.Step < 1 || a.MaxRun < 0 {
			t.Fatalf("ParseArraySpec(%q) = %+v", s, a)
		}
		exact := new(big.Int).Sub(big.NewInt(a.End), big.NewInt(a.Start))
		exact.Div(exact, big.NewInt(a.Step)).Add(exact, big.NewInt(1))
		// Size saturates at MaxInt64 for the one range with 2^63 indices.
		want := int64(math.MaxInt64)
		if exact.IsInt64() {
			want = exact.Int64()
		}
		if a.Size() != want {
			t.Fatalf("ParseArraySpec(%q): Size() = %d, the range has %s indices", s, a.Size(), exact)
		}
		if last := a.Index(want - 1); last > a.End || last < a.Start {
			t.Fatalf("ParseArraySpec(%q): last index %d outside %d-%d", s, last, a.Start, a.End)
		}
		canon := a.Submitted()
		if a.MaxRun > 0 {
			canon += "%" + strconv.FormatInt(a.MaxRun, 10)
		}
		back, err := model.ParseArraySpec(canon)
		if err != nil || !reflect.DeepEqual(back, a) {
			t.Fatalf("ParseArraySpec(%q) = %+v; %q parses back as %+v, %v", s, a, canon, back, err)
		}
		var remaining string
		fuzzcheck.Bounded(t, len(s), func() { remaining = a.Indices(model.IndexSet{{Lo: 0, Hi: a.Size() - 1}}) })
		if remaining == "" || remaining == "-" {
			t.Fatalf("ParseArraySpec(%q): every index queued shows as %q", s, remaining)
		}
	})
}

// FuzzParseIndexRange checks the inside of a subjob or range id
// ("7", "3-9", "3-9:2"), what qdel, qstat and qsig accept.
func FuzzParseIndexRange(f *testing.F) {
	for _, s := range []string{"7", "3-9", "3-9:2", "0-9223372036854775806:2", "9-3", "3:2", "-1", "1-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, step, err := model.ParseIndexRange(s)
		if err != nil {
			return
		}
		if from < 0 || to < from || step < 1 {
			t.Fatalf("ParseIndexRange(%q) = %d, %d, %d", s, from, to, step)
		}
		canon := strconv.FormatInt(from, 10)
		if to != from || step != 1 {
			canon += "-" + strconv.FormatInt(to, 10)
		}
		if step != 1 {
			canon += ":" + strconv.FormatInt(step, 10)
		}
		f2, t2, s2, err := model.ParseIndexRange(canon)
		if err != nil || f2 != from || t2 != to || s2 != step {
			t.Fatalf("ParseIndexRange(%q) = %d-%d:%d; %q parses back as %d-%d:%d, %v", s, from, to, step, canon, f2, t2, s2, err)
		}
	})
}

func FuzzParseLimits(f *testing.F) {
	for _, s := range []string{"10", "[o:PBS_ALL=10]", "[u:PBS_GENERIC=2]", "[u:alice=4],[g:grp=8]", "[ u : bob = 3 ]", "[x:a=1]", "[o:bob=1]", "-3", "[u:=1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := model.ParseLimits(s)
		if err != nil {
			return
		}
		for _, l := range ls {
			if l.Value < 0 || l.Who == "" {
				t.Fatalf("ParseLimits(%q) = %+v", s, ls)
			}
		}
		canon := model.FormatLimits(ls)
		back, err := model.ParseLimits(canon)
		if err != nil || !reflect.DeepEqual(back, ls) && len(back)+len(ls) > 0 {
			t.Fatalf("ParseLimits(%q) = %+v; %q parses back as %+v, %v", s, ls, canon, back, err)
		}
	})
}
