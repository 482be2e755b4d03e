package server

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestShouldTrim: the trimmer collects only when the server has stopped
// allocating and holds a good deal more heap than is live.
func TestShouldTrim(t *testing.T) {
	const mib = 1 << 20
	live := uint64(100 * mib)
	base := memTrimSample{allocs: 1000 * mib, live: live, heap: 2 * live}
	for _, c := range []struct {
		name            string
		live, allocated uint64
		heap            uint64
		want            bool
	}{
		{"idle after a burst", live, 1 * mib, 2 * live, true},
		{"still allocating", live, 50 * mib, 2 * live, false},
		{"idle, little beyond the live heap", live, 0, live + 20*mib, false},
		{"idle, small heap", 10 * mib, 0, 20 * mib, false},
		{"2 GiB live, 20 MiB allocated in 5 s", 2048 * mib, 20 * mib, 4096 * mib, false},
		{"2 GiB live, idle", 2048 * mib, 2 * mib, 4096 * mib, true},
	} {
		cur := base
		cur.allocs += c.allocated
		cur.live, cur.heap = c.live, c.heap
		if got := shouldTrim(base, cur); got != c.want {
			t.Errorf("%s: shouldTrim %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTrimReturnsFreeHeap: after garbage is dropped, what the trimmer does
// (one collection and a release) leaves the process holding about its live
// heap, read from the same runtime counters the trimmer reads.
func TestTrimReturnsFreeHeap(t *testing.T) {
	keep := make([][]byte, 0, 64)
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 256<<10))
	}
	junk := make([][]byte, 0, 256)
	for i := 0; i < 256; i++ {
		junk = append(junk, make([]byte, 256<<10))
	}
	junk = nil
	runtime.GC()
	before := readMemTrimSample()
	debug.FreeOSMemory()
	after := readMemTrimSample()
	if after.heap >= before.heap || after.heap > after.live+32<<20 {
		t.Errorf("heap held %d -> %d bytes for %d live", before.heap, after.heap, after.live)
	}
	runtime.KeepAlive(keep)
	_ = junk
}
