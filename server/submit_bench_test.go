package server

import (
	"context"
	"testing"
)

// BenchmarkSubmitAPI1 measures one durable submission at a time through
// the whole server (HTTP over the Unix socket, identity, rules, Raft with
// fsync): the latency a single qsub loop waits for on every job.
func BenchmarkSubmitAPI1(b *testing.B) {
	c := startServer(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Submit(context.Background(), heldReq(), 0); err != nil {
			b.Fatal(err)
		}
	}
}
