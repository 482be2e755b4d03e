package server

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// Maintenance and job-specific reservations at submission
// (docs/reservations.md).

// maxDeleteIdleTime bounds delete_idle_time (ten years), so that the
// idle deadline cannot overflow.
const maxDeleteIdleTime = 10 * 365 * 86400

// buildResvExtra builds a reservation from a pbs_rsub request: a
// maintenance reservation for --hosts, an ASAP reservation for -W qmove,
// or an advance/standing one (buildResv).
func buildResvExtra(req *api.ResvSubmitRequest, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot, now int64) (*model.Reservation, error) {
	if req.DeleteIdleTime < 0 || req.DeleteIdleTime > maxDeleteIdleTime {
		return nil, model.Errorf(model.PBSEBadAttrVal, " delete_idle_time")
	}
	switch {
	case len(req.MaintHosts) > 0:
		return buildMaintResv(req, id, cfg, snap, now)
	case req.Qmove != "":
		return buildQmoveResv(req, id, cfg, snap, now)
	case req.Job != "":
		return buildRunningJobResv(req, id, cfg, snap, now)
	}
	r, err := buildResv(req, id, cfg, now)
	if err == nil {
		r.DeleteIdleTime = req.DeleteIdleTime
	}
	return r, err
}

// buildMaintResv is pbs_rsub --hosts: managers only; it takes every vnode
// of the hosts whole (place=exclhost), whatever runs there, and is
// confirmed at once by the FSM (id M<seq>, no queue).
func buildMaintResv(req *api.ResvSubmitRequest, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot, now int64) (*model.Reservation, error) {
	if !isManager(id, cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	if req.Qmove != "" || req.RRule != "" || len(req.Resources) > 0 {
		return nil, model.Errorf(model.PBSEBadAttrVal, " --hosts takes no -l, -r or -W qmove")
	}
	if len(req.MaintHosts) > 1000 {
		return nil, model.Errorf(model.PBSEBadAttrVal, " --hosts")
	}
	r, err := buildResv(&api.ResvSubmitRequest{Name: req.Name, Start: req.Start, End: req.End, Duration: req.Duration,
		Token: req.Token, Resources: map[string]string{"select": "1:ncpus=0"}}, id, cfg, now)
	if err != nil {
		return nil, err
	}
	var sel []string
	var nodes []model.ExecChunk
	ncpus := 0.0
	seen := map[string]bool{}
	for _, h := range req.MaintHosts {
		if err := checkText("--hosts", h); err != nil {
			return nil, err
		}
		vs := snap.VnodesOnHost(h)
		if len(vs) == 0 {
			return nil, &model.PBSError{Code: model.PBSEUnknownNode, Msg: "Unknown node " + h}
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		r.Hosts = append(r.Hosts, h)
		hostCPUs := 0.0
		for _, v := range vs {
			amt := map[string]float64{}
			for k, a := range v.Capacity {
				if a > 0 {
					amt[k] = a
				}
			}
			hostCPUs += v.Capacity["ncpus"]
			nodes = append(nodes, model.ExecChunk{Shares: []model.VnodeShare{{Vnode: v.Name, Host: v.Host, Amounts: amt}}})
		}
		ncpus += hostCPUs
		sel = append(sel, "1:host="+h+":ncpus="+strconv.FormatFloat(hostCPUs, 'f', -1, 64))
	}
	r.Select = nil
	r.Place = model.Place{Arrangement: model.PlaceScatter, Sharing: model.SharingExclHost}
	r.Nodes = nodes
	r.ResourceList = map[string]string{
		"select":   strings.Join(sel, "+"),
		"place":    r.Place.String(),
		"ncpus":    strconv.FormatFloat(ncpus, 'f', -1, 64),
		"nodect":   strconv.Itoa(len(sel)),
		"walltime": model.FormatDuration(r.Duration),
	}
	r.Name = orDefault(req.Name, "NULL")
	return r, nil
}

// buildQmoveResv is pbs_rsub -W qmove=<job>: an ASAP reservation with the
// job's request and walltime, owned by the job's owner; the scheduler
// starts it as soon as it fits and the FSM moves the job in.
func buildQmoveResv(req *api.ResvSubmitRequest, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot, now int64) (*model.Reservation, error) {
	j, err := resvJob(req.Qmove, id, cfg, snap)
	if err != nil {
		return nil, err
	}
	if j.IsRunning() || j.Array != nil || model.IsResvQueue(j.Queue) {
		return nil, model.Err(model.PBSEBadState)
	}
	wt, ok := j.ResourceList["walltime"]
	if !ok {
		return nil, &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: "Reservation needs walltime"}
	}
	dur, err := model.ParseDuration(wt)
	if err != nil || dur <= 0 {
		return nil, &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: "Reservation needs walltime"}
	}
	res := map[string]string{"select": j.Select.String(), "walltime": wt}
	if p := j.Place.String(); p != "" {
		res["place"] = p
	}
	users := append([]string{j.User}, req.Users...) // the job's owner may use it
	r, err := buildResv(&api.ResvSubmitRequest{Name: req.Name, Start: now, Duration: dur, Token: req.Token,
		Users: users, Resources: res}, id, cfg, now)
	if err != nil {
		return nil, err
	}
	r.ASAP, r.QmoveJob = true, j.ID
	r.DeleteIdleTime = req.DeleteIdleTime
	if r.DeleteIdleTime == 0 {
		r.DeleteIdleTime = model.DefaultDeleteIdleTime
	}
	return r, nil
}

// resvJob finds the job of a job-specific reservation: it must exist and
// belong to the requester (operators and managers: anyone's).
func resvJob(jid string, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) (*model.Job, error) {
	if !strings.Contains(jid, ".") {
		jid += "." + cfg.Name // a bare sequence number, as qmove takes
	}
	j := snap.Job(jid)
	if j == nil || j.IsFinished() {
		return nil, model.Err(model.PBSEUnknownJobID)
	}
	if j.User != id.User && !isOperator(id, cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	return j, nil
}

// buildRunningJobResv is pbs_rsub --job <running job>: a reservation of
// the job's vnodes from now to the end of its walltime, made running by
// the FSM with the job moved in.
func buildRunningJobResv(req *api.ResvSubmitRequest, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot, now int64) (*model.Reservation, error) {
	j, err := resvJob(req.Job, id, cfg, snap)
	if err != nil {
		return nil, err
	}
	if !j.IsRunning() || j.Array != nil || model.IsResvQueue(j.Queue) {
		return nil, model.Err(model.PBSEBadState)
	}
	dur, err := model.ParseDuration(j.ResourceList["walltime"])
	if err != nil || dur <= 0 || j.Stime+dur <= now {
		return nil, &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: "Reservation needs walltime"}
	}
	return &model.Reservation{Owner: j.Owner, User: j.User, Token: req.Token, Start: now, End: j.Stime + dur,
		Duration: j.Stime + dur - now, ResvExtra: model.ResvExtra{QmoveJob: j.ID}}, nil
}
