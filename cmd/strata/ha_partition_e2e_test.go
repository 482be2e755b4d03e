//go:build e2e

package main

import "testing"

// partitioner cuts a server off from the others (ha_netns).
type partitioner struct {
	t *testing.T
	n int
}

func newPartitioner(t *testing.T, c *cluster, long bool) *partitioner { return nil }

func (p *partitioner) count() int {
	if p == nil {
		return 0
	}
	return p.n
}
func (p *partitioner) isolate(h haProc) {}
func (p *partitioner) heal(h haProc)    {}
