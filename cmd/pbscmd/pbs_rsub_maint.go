package pbscmd

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// pbs_rsub's maintenance (--hosts) and job-specific (-W qmove) forms
// (docs/reservations.md).

// splitHostsOpt takes "--hosts h1 h2 ..." and "--job <id>" out of the
// arguments: the hosts are the words after --hosts up to the next option.
func splitHostsOpt(args []string) (rest, hosts []string, job string) {
	for i := 0; i < len(args); i++ {
		if args[i] == "--job" && i+1 < len(args) {
			i++
			job = args[i]
			continue
		}
		if args[i] != "--hosts" {
			rest = append(rest, args[i])
			continue
		}
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			hosts = append(hosts, args[i])
		}
	}
	return rest, hosts, job
}

// parseRsubW reads one -W value: qmove=<job> and delete_idle_time=<secs or
// [[HH:]MM:]SS>, comma-separated.
func parseRsubW(req *api.ResvSubmitRequest, v string) error {
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || val == "" {
			return errIllegalOpt('W')
		}
		switch k {
		case "qmove":
			req.Qmove = val
		case "delete_idle_time":
			d, err := model.ParseDuration(val)
			if err != nil || d <= 0 {
				return errIllegalOpt('W')
			}
			req.DeleteIdleTime = d
		default:
			return errIllegalOpt('W')
		}
	}
	return nil
}

// submittedState is what pbs_rsub prints after the id without -I: a
// maintenance or --job reservation is confirmed at once (PBS prints
// CONFIRMED).
func submittedState(req *api.ResvSubmitRequest) string {
	if len(req.MaintHosts) > 0 || req.Job != "" {
		return "CONFIRMED"
	}
	return "UNCONFIRMED"
}

// writeResvExtra prints pbs_rstat -f's attributes of degraded and
// job-specific reservations, with PBS's names: reserve_retry (the next
// replacement attempt), reserve_job and delete_idle_time.
func writeResvExtra(line func(k, v string), r *model.Reservation, ts func(int64) string) {
	if r.RetryAt > 0 && r.Degraded() {
		line("reserve_retry", ts(r.RetryAt))
	}
	if r.QmoveJob != "" {
		line("reserve_job", r.QmoveJob)
	}
	if r.DeleteIdleTime > 0 {
		line("delete_idle_time", strconv.FormatInt(r.DeleteIdleTime, 10))
	}
}
