package sim

import (
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/scheduler"
)

// offerAOEs makes vnode i of a machine with AOEs provisionable: it offers
// every AOE (resources_available.aoe), has provision_enable, and starts on
// AOE i mod len(aoes).
func offerAOEs(v *model.Vnode, i int, aoes []string) {
	if len(aoes) == 0 {
		return
	}
	v.Available["aoe"] = strings.Join(aoes, ",")
	v.ProvisionEnable = true
	v.CurrentAOE = aoes[i%len(aoes)]
}

// askAOE makes every chunk of a job ask for aoe (none when "").
func askAOE(j *model.Job, aoe string) {
	if aoe == "" {
		return
	}
	for i := range j.Select {
		ch := &j.Select[i]
		ch.Res = append(ch.Res, model.ResReq{Name: "aoe", Value: aoe})
		if ch.Match == nil {
			ch.Match = map[string]string{}
		}
		ch.Match["aoe"] = aoe
	}
}

// SetProvision is what the next cycle knows about provisioning (provBooks).
func (b *ownBooks) SetProvision(p scheduler.ProvisionInfo) { b.snap.Provision = p }

// EstStart is a queued job's top-job estimated start, 0 for none.
func (b *ownBooks) EstStart(id string) int64 {
	if j := b.jobs[id]; j != nil && j.State == model.StateQueued && j.TopJob() {
		return j.EstStart()
	}
	return 0
}
