package server

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Returning memory to the system when the server goes idle.
//
// The state store is most of the server's heap and lives as long as its
// jobs. At the default GOGC=100 the Go runtime lets the heap grow to twice
// its live size before collecting, and keeps the pages of that size: a
// burst of submissions leaves the server at about twice the memory its
// queued jobs need, for as long as they stay queued (docs/performance.md,
// "Server memory per queued job"). Collecting more often would cost CPU on
// every submission and scheduling cycle; instead, once the server has
// stopped allocating (a burst is over), the free part of the heap is
// handed back (debug.FreeOSMemory: one collection, then the free pages
// are released). Each check reads a few runtime counters; a trim costs one
// collection, at most once per memTrimMinGap and only while idle.
//
// A site that set GOMEMLIMIT or GOGC=off manages the heap itself: the
// trimmer then stays out of the way.

const (
	memTrimEvery  = 5 * time.Second
	memTrimMinGap = time.Minute
	// memTrimMinExcess is the least free heap worth a collection.
	memTrimMinExcess = 16 << 20
)

// memTrimSample is what one check reads from the runtime.
type memTrimSample struct {
	allocs uint64 // bytes allocated since start
	live   uint64 // live heap at the last collection
	heap   uint64 // heap memory held from the system (not released)
}

func readMemTrimSample() memTrimSample {
	s := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	return memTrimSample{allocs: v(0), live: v(1), heap: v(2) + v(3) + v(4)}
}

// shouldTrim decides from two consecutive samples: idle (less allocated
// since the last check than 1/32 of the live heap, between 1 and 16 MiB:
// a large server that still runs cycles is not idle) and holding more than
// a quarter of the live heap beyond it (at least memTrimMinExcess).
func shouldTrim(prev, cur memTrimSample) bool {
	idle := cur.allocs-prev.allocs < min(max(1<<20, cur.live/32), 16<<20)
	excess := uint64(0)
	if cur.heap > cur.live {
		excess = cur.heap - cur.live
	}
	return idle && excess > max(memTrimMinExcess, cur.live/4)
}

// memTrimLoop runs the trimmer until ctx ends.
func (s *Server) memTrimLoop(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") == "off" {
		return
	}
	t := time.NewTicker(memTrimEvery)
	defer t.Stop()
	prev := readMemTrimSample()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := readMemTrimSample()
		if shouldTrim(prev, cur) && time.Since(last) >= memTrimMinGap {
			debug.FreeOSMemory()
			last = time.Now()
			cur = readMemTrimSample() // the collection's own allocations are not activity
		}
		prev = cur
	}
}
