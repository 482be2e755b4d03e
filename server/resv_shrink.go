package server

import (
	"sort"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// Shrinking a running reservation that has jobs (pbs_ralter -l select,
// docs/reservations.md): as in PBS the new select must be made of the
// original chunks (each chunk the same, at most as many copies). It needs
// no scheduler: the reservation keeps, of its chunks, first those its
// running jobs use, and gives the others back at once. Its running jobs
// must still fit in what it keeps, else "Reservation not empty".

// chunkKey is a chunk without its count.
func chunkKey(c model.Chunk) string {
	s := c.String()
	_, rest, _ := strings.Cut(s, ":")
	return rest
}

// shrinkRunning returns the exec chunks a running reservation keeps with
// select sel, given the jobs running in it.
func shrinkRunning(rv *model.Reservation, sel model.Select, running []*model.Job) ([]model.ExecChunk, error) {
	if len(rv.Nodes) != rv.Select.NodeCount() {
		// place=exclhost adds whole hosts: chunks and vnodes do not pair.
		return nil, &model.PBSError{Code: model.PBSENoSupport, Msg: model.MsgNoSupport + " (shrinking a running exclhost reservation)"}
	}
	// The exec chunks of each original chunk, in order.
	byKey := map[string][]int{}
	i := 0
	for _, ch := range rv.Select {
		for k := 0; k < ch.Count; k++ {
			byKey[chunkKey(ch)] = append(byKey[chunkKey(ch)], i)
			i++
		}
	}
	used := map[string]bool{} // vnodes its jobs run on
	for _, j := range running {
		for _, ec := range j.Exec {
			for _, sh := range ec.Shares {
				used[sh.Vnode] = true
			}
		}
	}
	busy := func(ec model.ExecChunk) bool {
		for _, sh := range ec.Shares {
			if used[sh.Vnode] {
				return true
			}
		}
		return false
	}
	var kept []model.ExecChunk
	for _, ch := range sel {
		key := chunkKey(ch)
		cands := append([]int(nil), byKey[key]...)
		if len(cands) < ch.Count {
			return nil, &model.PBSError{Code: model.PBSESelectNotSubset, Msg: model.MsgSelectNotSubset}
		}
		// Chunks its jobs use first, then the others in their order.
		sort.SliceStable(cands, func(a, b int) bool { return busy(rv.Nodes[cands[a]]) && !busy(rv.Nodes[cands[b]]) })
		for _, ci := range cands[:ch.Count] {
			kept = append(kept, rv.Nodes[ci])
		}
		byKey[key] = cands[ch.Count:]
	}
	if !model.ExecCovers(kept, running) {
		return nil, &model.PBSError{Code: model.PBSEResvNotEmpty, Msg: model.MsgResvNotEmpty}
	}
	return kept, nil
}

// buildShrink fills in c for shrinking a running reservation with jobs.
func buildShrink(c *raftstore.AlterResv, req *api.ResvAlterRequest, rv *model.Reservation, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	if err := checkText("Resource_List.select", req.Select); err != nil {
		return err
	}
	res := map[string]string{"select": req.Select, "place": rv.Place.String(), "walltime": model.FormatDuration(rv.Duration)}
	list, sel, _, err := resolveResources(res, cfg)
	if err != nil {
		return err
	}
	if model.SelectAOE(sel) != rv.AOE {
		return model.Errorf(model.PBSEBadAttrVal, " Resource_List.select (the AOE of a reservation cannot change)")
	}
	list["place"] = rv.Place.String()
	var running []*model.Job
	for _, j := range snap.Jobs() {
		if j.Queue == rv.Queue && j.IsRunning() {
			running = append(running, j)
		}
	}
	nodes, err := shrinkRunning(rv, sel, running)
	if err != nil {
		return err
	}
	c.Shrink, c.Nodes = true, nodes
	c.Start, c.End, c.Duration = rv.Start, rv.End, rv.Duration
	c.ResourceList, c.Select = list, sel
	return nil
}
