package model

import (
	"math"
	"testing"
)

func TestIndexSetOps(t *testing.T) {
	var s IndexSet
	s = s.Add(0, 9).Add(20, 29).Add(10, 19)
	if len(s) != 1 || s.Count() != 30 {
		t.Fatalf("adjacent spans not merged: %v", s)
	}
	s = s.Remove(5, 7)
	if len(s) != 2 || s.Count() != 27 || s.Contains(6) || !s.Contains(8) {
		t.Fatalf("remove: %v", s)
	}
	if got := s.Intersect(3, 9); got.Count() != 4 {
		t.Fatalf("intersect: %v", got)
	}
	a, err := ParseArraySpec("1-9:2%3")
	if err != nil || a.Size() != 5 || a.MaxRun != 3 {
		t.Fatalf("spec: %+v %v", a, err)
	}
	if got := a.Indices(IndexSet{{0, 0}, {2, 4}}); got != "1,5-9:2" {
		t.Fatalf("indices = %s", got)
	}
	for _, bad := range []string{"5-1", "1", "a-b", "1-5:0", "1-5%0", "-1-5"} {
		if _, err := ParseArraySpec(bad); err == nil {
			t.Errorf("ParseArraySpec(%q) accepted", bad)
		}
	}
	if SubjobID("7[].svr", 3) != "7[3].svr" {
		t.Fatal(SubjobID("7[].svr", 3))
	}
	if p, in, ok := SplitArrayID("7[3-5].svr"); !ok || p != "7[].svr" || in != "3-5" {
		t.Fatalf("split: %s %s %v", p, in, ok)
	}
	if !LessJobID("7[].svr", "7[2].svr") || !LessJobID("7[2].svr", "7[10].svr") {
		t.Fatal("subjob order")
	}
}

func TestArraySizeNeverOverflows(t *testing.T) {
	a, err := ParseArraySpec("0-9223372036854775807")
	if err != nil {
		t.Fatal(err)
	}
	if a.Size() != math.MaxInt64 {
		t.Fatalf("size %d, want saturated at MaxInt64", a.Size())
	}
	b := &ArrayState{Start: 0, End: math.MaxInt64, Step: math.MaxInt64}
	if b.Size() != 2 {
		t.Fatalf("size %d, want 2", b.Size())
	}
	lo, hi, ok := b.OrdinalRange(1, math.MaxInt64)
	if !ok || lo != 1 || hi != 1 {
		t.Fatalf("OrdinalRange = %d %d %v, want 1 1 true", lo, hi, ok)
	}
	n := 0
	IndexSet{{Lo: math.MaxInt64 - 2, Hi: math.MaxInt64}}.Each(func(int64) bool { n++; return true })
	if n != 3 {
		t.Fatalf("Each visited %d ordinals of a span ending at MaxInt64, want 3", n)
	}
	c := &ArrayState{Start: 0, End: 9, Step: 1}
	got := c.StepOrdinals(IndexSet{{0, 9}}, 0, math.MaxInt64-1, 2)
	if c.Indices(got) != "0,2,4,6,8" {
		t.Fatalf("StepOrdinals = %s", c.Indices(got))
	}
	if c.AnyInRange(10, math.MaxInt64, 3) || !c.AnyInRange(9, math.MaxInt64, math.MaxInt64) {
		t.Fatal("AnyInRange wrong")
	}
}

func TestSelectCountsAreBounded(t *testing.T) {
	defs := BuiltinResources()
	for _, spec := range []string{"100001:ncpus=1", "60000:ncpus=1+60000:ncpus=1", "9223372036854775807:ncpus=1", "1:ncpus=1:mpiprocs=1000000000"} {
		if _, err := ParseSelect(spec, defs); err == nil {
			t.Errorf("select=%s accepted", spec)
		}
	}
	if _, err := ParseSelect("100000:ncpus=1:mpiprocs=4", defs); err != nil {
		t.Errorf("select at the bound refused: %v", err)
	}
}
