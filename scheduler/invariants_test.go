package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestPlanInvariants schedules random clusters and checks every plan
// against the rules placement must keep, whatever the heuristics do: no
// vnode over capacity, ineligible vnodes untouched, exclusive vnodes not
// shared, arrangements respected, chunks whole unless splitting is allowed,
// and the same plan from the same snapshot.
func TestPlanInvariants(t *testing.T) {
	places := []string{"", "free", "pack", "scatter", "vscatter", "excl", "pack:excl", "scatter:excl", "exclhost", "vscatter:exclhost"}
	sels := []string{"1:ncpus=1", "2:ncpus=2", "1:ncpus=3+2:ncpus=1", "1:ncpus=6", "3:ncpus=1:mem=1gb", "1:ncpus=2:mem=6gb"}
	keySets := [][]string{nil, {"ncpus HIGH unused"}, {"ncpus LOW unused", "sort_priority HIGH"}, {"mem LOW"}}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		var vn []*model.Vnode
		for h := 0; h < 2+rng.IntN(5); h++ {
			nv := 1 + rng.IntN(3)
			for k := 0; k < nv; k++ {
				var opts []vnodeOpt
				opts = append(opts, onHost(fmt.Sprintf("h%d", h)), prio(rng.IntN(2)))
				switch rng.IntN(8) {
				case 0:
					opts = append(opts, withState(model.NodeOffline))
				case 1:
					opts = append(opts, running("900.svr", float64(1+rng.IntN(3))))
				case 2:
					opts = append(opts, exclusiveJob("901.svr"))
				}
				vn = append(vn, vnode(fmt.Sprintf("h%dv%d", h, k), fmt.Sprintf("ncpus=%d,mem=%dgb", 2+rng.IntN(4), 4+rng.IntN(8)), opts...))
			}
		}
		var js []*model.Job
		for i := 0; i < 12; i++ {
			js = append(js, job(t, int64(i+1), sels[rng.IntN(len(sels))], places[rng.IntN(len(places))], jobPrio(rng.IntN(2))))
		}
		s := snapshot(vn, js...)
		if k := keySets[rng.IntN(len(keySets))]; k != nil {
			withKeys(t, s, k...)
		}
		p := Schedule(s)
		if p2 := Schedule(s); !reflect.DeepEqual(p, p2) {
			t.Fatalf("seed %d: plan not deterministic", seed)
		}
		checkPlan(t, seed, s, p)
		checkNeverRun(t, seed, s, p)
	}
}

// checkNeverRun: a job called "Can Never Run" must not run alone on the same
// vnodes emptied and brought up.
func checkNeverRun(t *testing.T, seed uint64, s *Snapshot, p *Plan) {
	t.Helper()
	var empty []*model.Vnode
	for _, v := range s.Vnodes {
		c := v.Copy()
		c.State, c.Jobs, c.ExclusiveJob, c.Assigned = 0, nil, "", nil
		empty = append(empty, c)
	}
	for _, c := range p.Comments {
		if !c.NeverRun {
			continue
		}
		for _, j := range s.Queued {
			if j.ID != c.JobID {
				continue
			}
			if alone := Schedule(snapshot(empty, j)); len(alone.Runs) != 0 {
				t.Fatalf("seed %d: %s judged %q but runs on an empty cluster: %s", seed, j.ID, c.Comment, execOf(alone.Runs[0]))
			}
		}
	}
}

func checkPlan(t *testing.T, seed uint64, s *Snapshot, p *Plan) {
	t.Helper()
	byName := map[string]*model.Vnode{}
	for _, v := range s.Vnodes {
		byName[v.Name] = v
	}
	jobs := map[string]*model.Job{}
	for _, j := range s.Queued {
		jobs[j.ID] = j
	}
	used := map[string]map[string]float64{}
	owners := map[string]map[string]bool{}
	exclusive := map[string]string{}
	for _, v := range s.Vnodes {
		if v.ExclusiveJob != "" {
			exclusive[v.Name] = v.ExclusiveJob
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d: "+format, append([]any{seed}, args...)...)
	}
	for _, d := range p.Runs {
		j := jobs[d.JobID]
		if want := j.Select.NodeCount(); len(d.Exec) != want {
			fail("%s: %d exec chunks, want %d", d.JobID, len(d.Exec), want)
		}
		hosts := map[string]int{}
		vnodes := map[string]int{}
		k := 0
		for _, ch := range j.Select {
			for c := 0; c < ch.Count; c++ {
				ec := d.Exec[k]
				k++
				got := map[string]float64{}
				chunkHosts := map[string]bool{}
				for _, sh := range ec.Shares {
					v := byName[sh.Vnode]
					if v.State&model.Unavailable != 0 {
						fail("%s on ineligible %s", d.JobID, v.Name)
					}
					for r, a := range sh.Amounts {
						got[r] += a
						if used[v.Name] == nil {
							used[v.Name] = map[string]float64{}
						}
						used[v.Name][r] += a
					}
					if owners[v.Name] == nil {
						owners[v.Name] = map[string]bool{}
					}
					owners[v.Name][d.JobID] = true
					chunkHosts[sh.Host] = true
					if len(sh.Amounts) > 0 || len(ec.Shares) == 1 {
						vnodes[sh.Vnode]++
					}
				}
				for r, a := range ch.Consume {
					if got[r] != a {
						fail("%s: chunk got %s=%v, want %v", d.JobID, r, got[r], a)
					}
				}
				if len(chunkHosts) != 1 {
					fail("%s: chunk split across hosts", d.JobID)
				}
				for h := range chunkHosts {
					hosts[h]++
				}
				split := 0
				for _, sh := range ec.Shares {
					if len(sh.Amounts) > 0 {
						split++
					}
				}
				arr := j.Place.ArrangementOrFree()
				if split > 1 && arr != model.PlacePack && arr != model.PlaceScatter {
					fail("%s: chunk split under place=%s", d.JobID, arr)
				}
			}
		}
		switch j.Place.ArrangementOrFree() {
		case model.PlacePack:
			if len(hosts) != 1 {
				fail("%s: pack on %d hosts", d.JobID, len(hosts))
			}
		case model.PlaceScatter:
			for h, n := range hosts {
				if n > 1 {
					fail("%s: scatter put %d chunks on %s", d.JobID, n, h)
				}
			}
		case model.PlaceVScatter:
			for v, n := range vnodes {
				if n > 1 {
					fail("%s: vscatter put %d chunks on %s", d.JobID, n, v)
				}
			}
		}
		excl := j.Place.Sharing == model.SharingExcl || j.Place.Sharing == model.SharingExclHost
		if excl != d.Exclusive {
			fail("%s: Exclusive=%v for sharing %q", d.JobID, d.Exclusive, j.Place.Sharing)
		}
		for _, ec := range d.Exec {
			for _, sh := range ec.Shares {
				if excl {
					if len(byName[sh.Vnode].Jobs) > 0 {
						fail("%s: excl on vnode %s with jobs", d.JobID, sh.Vnode)
					}
					if o, ok := exclusive[sh.Vnode]; ok && o != d.JobID {
						fail("%s: vnode %s already exclusive to %s", d.JobID, sh.Vnode, o)
					}
					exclusive[sh.Vnode] = d.JobID
				} else if o, ok := exclusive[sh.Vnode]; ok {
					fail("%s: shares exclusive vnode %s of %s", d.JobID, sh.Vnode, o)
				}
			}
		}
		if j.Place.Sharing == model.SharingExclHost {
			for h := range hosts {
				for _, v := range s.Vnodes {
					if v.Host == h && exclusive[v.Name] != d.JobID {
						fail("%s: exclhost misses %s", d.JobID, v.Name)
					}
				}
			}
		}
	}
	for name, res := range used {
		v := byName[name]
		for r, a := range res {
			if v.Assigned[r]+a > v.Capacity[r] {
				fail("vnode %s over capacity on %s: %v+%v > %v", name, r, v.Assigned[r], a, v.Capacity[r])
			}
		}
		for id := range owners[name] {
			if o, ok := exclusive[name]; ok && o != id {
				fail("vnode %s exclusive to %s also runs %s", name, o, id)
			}
		}
	}
}
