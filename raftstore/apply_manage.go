package raftstore

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore/manager"
)

// writerVnodes lets manager.Apply read vnodes and queue usage inside the
// write transaction.
type writerVnodes struct{ w *writer }

func (s writerVnodes) Vnode(name string) *model.Vnode { return s.w.vnode(name) }

func (s writerVnodes) Vnodes() []*model.Vnode {
	it, _ := s.w.txn.Get(tableVnodes, "id")
	var out []*model.Vnode
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Vnode))
	}
	return out
}

func (s writerVnodes) QueueJobs(queue string) int {
	it, _ := s.w.txn.Get(tableJobs, "id")
	n := 0
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if j := raw.(*model.Job); j.Queue == queue && !j.IsFinished() {
			n++
		}
	}
	return n
}

func (w *writer) manage(c *Manage) any {
	m := w.meta()
	res, err := manager.Apply(m.Config, writerVnodes{w}, &c.Request)
	if err != nil {
		return err
	}
	if res.Config.HookVersion != m.Config.HookVersion {
		w.touch(AgentHooksKey)
	}
	m.Config = res.Config
	if res.ResourcesChanged {
		m.Epoch++
	}
	w.manageEvent(c)
	w.putMeta(m)
	for _, v := range res.Vnodes {
		if old := w.vnode(v.Name); old == nil || old.State != v.State {
			v.LastStateChange = c.Now
		}
		w.putVnode(v)
	}
	for _, name := range res.DeleteVnodes {
		if v := w.vnode(name); v != nil {
			w.must(w.txn.Delete(tableVnodes, v))
			w.touch(tableVnodes)
		}
	}
	if res.ResourcesChanged {
		// Capacities depend on the resource definitions.
		for _, v := range (writerVnodes{w}).Vnodes() {
			v = v.Copy()
			v.DeriveCapacity(res.Config.Defs)
			w.putVnode(v)
		}
	}
	return nil
}
