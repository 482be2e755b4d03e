// Package fuzzcheck holds the invariants every fuzz target of Strata shares:
// a parser given a small input must finish quickly and allocate little,
// whatever numbers the input spells out, and its errors must be the kind
// the caller reports to users.
//
// It is imported only by _test.go files; it lives outside them so that every
// package's fuzz targets apply the same bounds.
package fuzzcheck

import (
	"errors"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// Bounds for one call on an input of at most MaxInput bytes. They are far
// above what any parser needs (microseconds, kilobytes) and far below what
// an input that makes a parser loop or allocate proportionally to a number
// it holds costs (a range of 2^63 indices, a COUNT of a billion), so they
// catch such inputs without flaking on a loaded machine.
const (
	MaxInput = 1 << 10
	MaxTime  = 2 * time.Second
	MaxAlloc = 32 << 20
	// hangTime is when Bounded stops waiting for a call.
	hangTime = 4 * MaxTime
)

// Bounded runs fn and fails t when it took longer than MaxTime or allocated
// more than MaxAlloc bytes on the heap. Inputs longer than MaxInput are not
// held to the bounds (fn still runs, to find panics).
func Bounded(t testing.TB, inputLen int, fn func()) {
	t.Helper()
	if inputLen > MaxInput {
		fn()
		return
	}
	before := heapAllocs()
	start := time.Now()
	// fn runs on its own goroutine so that an input that makes it loop
	// (nearly) forever fails the target instead of hanging it; the
	// goroutine is left running, the process ends soon after a failure.
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	timer := time.NewTimer(hangTime)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("a %d-byte input did not finish within %v: work proportional to a value in the input?", inputLen, hangTime)
	}
	took := time.Since(start)
	allocated := heapAllocs() - before
	if took > MaxTime {
		t.Fatalf("a %d-byte input took %v (bound %v): work proportional to a value in the input?", inputLen, took, MaxTime)
	}
	if allocated > MaxAlloc {
		t.Fatalf("a %d-byte input allocated %d bytes (bound %d): allocation proportional to a value in the input?", inputLen, allocated, MaxAlloc)
	}
}

// heapAllocs reads the cumulative bytes allocated on the heap; unlike
// runtime.ReadMemStats it does not stop the world, so it is cheap enough to
// call around every fuzz input.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// PBSError fails t unless err is (or wraps) a *model.PBSError with one of
// the codes given (any code when none are given): what the server and the
// commands turn into "<cmd>: <message>" and an exit status.
func PBSError(t testing.TB, err error, codes ...int) {
	t.Helper()
	var pe *model.PBSError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a PBS error", err, err)
	}
	if len(codes) == 0 {
		return
	}
	for _, c := range codes {
		if pe.Code == c {
			return
		}
	}
	t.Fatalf("error %v has code %d, want one of %v", err, pe.Code, codes)
}
