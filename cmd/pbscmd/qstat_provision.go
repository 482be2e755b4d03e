package pbscmd

import (
	"fmt"
	"strconv"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// provisionAttrs are the provisioning server attributes of qstat -Bf
// (docs/provisioning.md, "Insight"). max_concurrent_provision and
// provision_enable are OpenPBS's; the rest are Strata's, named in the same
// style, per-AOE values as resource-like sub-attributes:
//
//	provision_running = 1
//	provision_waiting = 3
//	provision_estimate.rhel9 = 00:04:10
//	provision_successes.rhel9 = 12
//	provision_failures.rhel9 = 1
//	provision_mean_wait.rhel9 = 00:00:40
//	suggested_max_concurrent_provision = 7
func provisionAttrs(p *api.ServerProvision) []attr {
	if p == nil {
		return nil
	}
	out := []attr{
		{Name: "provision_enable", Value: model.FormatBool(p.Enabled)},
		{Name: "max_concurrent_provision", Value: strconv.FormatInt(p.MaxConcurrent, 10)},
		{Name: "provision_running", Value: strconv.Itoa(p.Running)},
		{Name: "provision_waiting", Value: strconv.Itoa(p.Waiting)},
	}
	for _, a := range p.PerAOE {
		out = append(out, attr{Name: "provision_estimate", Resource: a.AOE, Value: hms(a.EstimateSecs)})
	}
	for _, a := range p.PerAOE {
		out = append(out, attr{Name: "provision_successes", Resource: a.AOE, Value: strconv.FormatInt(a.Successes, 10)})
	}
	for _, a := range p.PerAOE {
		out = append(out, attr{Name: "provision_failures", Resource: a.AOE, Value: strconv.FormatInt(a.Failures, 10)})
	}
	for _, a := range p.PerAOE {
		out = append(out, attr{Name: "provision_mean_wait", Resource: a.AOE, Value: hms(a.MeanWaitSecs)})
	}
	return append(out, attr{Name: "suggested_max_concurrent_provision", Value: strconv.FormatInt(p.Suggested, 10)})
}

// hms formats seconds as PBS writes durations (HH:MM:SS).
func hms(secs int64) string {
	if secs < 0 {
		secs = 0
	}
	return fmt.Sprintf("%02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
}
