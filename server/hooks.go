package server

import (
	"context"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/raftstore/manager"
)

// runServerHooks runs the enabled hooks of a server event in order. The
// first rejection ends the chain; its error carries the hook's message.
// Accepted changes of earlier hooks are returned (queuejob applies them).
func (s *Server) runServerHooks(ctx context.Context, cfg *model.ServerConfig, ev hooks.Event) ([]hooks.Outcome, error) {
	var outs []hooks.Outcome
	for _, h := range model.OrderedHooks(cfg.Hooks, ev.Type) {
		h := h
		var cred *hooks.Credential
		if h.User == "pbsuser" && ev.Job != nil {
			cred = &hooks.Credential{UID: uint32(ev.Job.UID), GID: uint32(ev.Job.GID)}
		}
		out := s.hookRunner().Run(ctx, &h, ev, cred)
		s.logHookRun(&h, ev.Type, &out)
		if !out.Accept {
			return outs, &model.PBSError{Code: manager.PBSEHookError, Msg: out.Message}
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// logHookRun logs a hook's pbs.logmsg lines and, when it failed or
// rejected (or debug is set), the run with its stderr.
func (s *Server) logHookRun(h *model.Hook, event string, out *hooks.Outcome) {
	for _, line := range out.HookLogLines(event) {
		s.logger.Print(line)
	}
	if out.ShouldLog(h.Debug) {
		s.logger.Print(out.LogLine(event))
	}
}

// hookEvent is the event of a server hook with what every server event
// carries: the requestor split as PBS does, the resource types and what
// pbs.server() reads.
func (s *Server) hookEvent(typ string, id *Identity, snap *raftstore.StateSnapshot, cfg *model.ServerConfig) hooks.Event {
	ev := hooks.Event{Type: typ, Defs: cfg.Defs, Server: hooks.NewServerView(cfg, nil)}
	if id != nil {
		ev.Requestor, ev.RequestorHost = id.User, id.Host
	}
	return ev
}

func (s *Server) hookRunner() *hooks.Runner {
	return &hooks.Runner{Dir: hooks.ScriptDir(s.cfg.DataDir), Lookup: s.hookLookup}
}

// hookLookup answers a Python hook's queries from the current state:
// pbs.server().vnode(name) and vnodes() (what pbsnodes shows anyone), and
// job(id): any job for a hook running as the server's user, for a pbsuser
// hook only what its user could see with qstat (query_other_jobs).
func (s *Server) hookLookup(kind, name string, cred *hooks.Credential) (any, bool) {
	snap := s.state()
	cfg := snap.Config()
	switch kind {
	case "vnode":
		v := snap.Vnode(name)
		if v == nil {
			return nil, false
		}
		return hooks.NewVnodeView(v, cfg.Defs), true
	case "vnodes":
		all := map[string]hooks.VnodeView{}
		for _, v := range snap.Vnodes() {
			all[v.Name] = hooks.NewVnodeView(v, cfg.Defs)
		}
		return all, true
	case "job":
	default:
		return nil, false
	}
	j := lookupJob(snap, name)
	if j == nil {
		return nil, false
	}
	if cred != nil && !cfg.QueryOtherJobs && uint32(j.UID) != cred.UID {
		return nil, false
	}
	return hooks.JobAttrs(j, cfg.Defs), true
}

// applyHookChanges applies a queuejob hook's job changes.
func applyHookChanges(j *model.Job, changes map[string]string, defs model.ResourceDefs) error {
	for _, k := range model.SortedKeys(changes) {
		v := changes[k]
		switch {
		case strings.HasPrefix(k, "Resource_List."):
			name := strings.TrimPrefix(k, "Resource_List.")
			d, ok := defs[name]
			if !ok || d.HostLevel() || name == "select" || name == "place" {
				return model.Errorf(model.PBSEBadAttrVal, " %s (hook may set job-wide resources only)", k)
			}
			norm, err := d.Normalize(v)
			if err != nil {
				return model.Errorf(model.PBSEBadAttrVal, " %s", k)
			}
			j.ResourceList[name] = norm
		case k == "Job_Name":
			if !validJobName(v) {
				return model.Errorf(model.PBSEBadAttrVal, " Job_Name")
			}
			j.Name = v
		case k == "Priority":
			n, err := strconv.Atoi(v)
			if err != nil || n < -1024 || n > 1023 {
				return model.Errorf(model.PBSEBadAttrVal, " Priority")
			}
			j.Priority = n
		case strings.HasPrefix(k, "Variable_List."):
			name := strings.TrimPrefix(k, "Variable_List.")
			if name == "" || strings.ContainsAny(name, "=,\x00") || strings.ContainsRune(v, 0) {
				return model.Errorf(model.PBSEBadAttrVal, " Variable_List")
			}
			setEnv(j, name, v)
		case k == "Hold_Types":
			if v == "" || strings.Trim(v, "uosn") != "" || (v != "n" && strings.Contains(v, "n")) {
				return model.Errorf(model.PBSEBadAttrVal, " Hold_Types")
			}
			j.Hold = v
		case k == "Mail_Points":
			if v == "" || (v != "n" && strings.Trim(v, "abej") != "") {
				return model.Errorf(model.PBSEBadAttrVal, " Mail_Points")
			}
			j.Mail = v
		case k == "Mail_Users":
			j.MailTo = v
		case k == "Rerunable":
			b, err := model.ParseBool(v)
			if err != nil {
				return model.Errorf(model.PBSEBadAttrVal, " Rerunable")
			}
			j.Rerun = b
		case k == "comment":
			j.Comment = v
		case k == "Account_Name":
			j.Account = v
		case k == "project":
			j.Project = v
		default:
			return model.Errorf(model.PBSEBadAttrVal, " %s (not settable by a hook)", k)
		}
	}
	return nil
}

// setEnv sets a Variable_List entry, replacing an existing one in place.
func setEnv(j *model.Job, name, value string) {
	for i := range j.Env {
		if j.Env[i].Name == name {
			j.Env[i].Value = value
			return
		}
	}
	j.Env = append(j.Env, model.EnvVar{Name: name, Value: value})
}

// queuejobHooks runs queuejob hooks on a job about to be submitted and
// applies their changes.
func (s *Server) queuejobHooks(ctx context.Context, j *model.Job, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, "queuejob")) == 0 {
		return nil
	}
	ev := s.hookEvent("queuejob", id, s.state(), cfg)
	ev.Job = j
	outs, err := s.runServerHooks(ctx, cfg, ev)
	if err != nil {
		return err
	}
	for _, o := range outs {
		if err := applyHookChanges(j, o.Changes, cfg.Defs); err != nil {
			return err
		}
	}
	return nil
}

// jobHooks runs an accept/reject event (movejob) on a job. For movejob,
// dest is the destination queue: the hook sees the job in it and the queue
// it leaves as src_queue. (modifyjob is modifyjobHooks: its job is the
// request.)
func (s *Server) jobHooks(ctx context.Context, event string, j *model.Job, dest string, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, event)) == 0 {
		return nil
	}
	ev := s.hookEvent(event, id, s.state(), cfg)
	ev.Job = j
	if dest != "" {
		moved := j.Copy()
		moved.Queue = dest
		ev.Job, ev.SrcQueue = moved, j.Queue
	}
	_, err := s.runServerHooks(ctx, cfg, ev)
	return err
}

// runjobHooks filters a scheduling plan: a run decision a runjob hook
// rejects becomes a comment with the hook's message, and the job stays
// queued. It returns the jobs rejected. verdicts remembers the hooks'
// answers by job and vnodes within one cycle, so a replanned cycle
// (schedloop.go) asks again only about decisions that changed.
func (s *Server) runjobHooks(cfg *model.ServerConfig, snap *raftstore.StateSnapshot, cmd *raftstore.ApplyPlan, verdicts map[string]error) (rejected []string) {
	if len(model.OrderedHooks(cfg.Hooks, "runjob")) == 0 {
		return nil
	}
	kept := cmd.Runs[:0]
	base := s.hookEvent("runjob", nil, snap, cfg)
	// PBS's requestor of a runjob event is the scheduler.
	base.Requestor, base.RequestorHost = "Scheduler", s.hostname
	for _, r := range cmd.Runs {
		j := snap.Job(r.JobID)
		if j == nil {
			continue
		}
		var vnodes []string
		for _, ec := range r.Exec {
			for _, sh := range ec.Shares {
				vnodes = append(vnodes, sh.Vnode)
			}
		}
		key := r.JobID + "\x00" + strings.Join(vnodes, "+")
		err, asked := verdicts[key]
		if !asked {
			ev := base
			ev.Job, ev.Vnodes = j, vnodes
			_, err = s.runServerHooks(context.Background(), cfg, ev)
			verdicts[key] = err
		}
		if err != nil {
			cmd.Comments = append(cmd.Comments, model.JobComment{JobID: r.JobID, Comment: "Not Running: " + err.Error()})
			rejected = append(rejected, r.JobID)
			continue
		}
		kept = append(kept, r)
	}
	cmd.Runs = kept
	return rejected
}

// periodicLoop runs periodic hooks every freq seconds (leader only).
func (s *Server) periodicLoop(ctx context.Context) {
	last := map[string]time.Time{}
	every(ctx, time.Second, false, func() {
		snap := s.state()
		cfg := snap.Config()
		now := time.Now()
		for _, h := range model.OrderedHooks(cfg.Hooks, "periodic") {
			h := h
			if now.Sub(last[h.Name]) < time.Duration(h.Freq)*time.Second {
				continue
			}
			last[h.Name] = now
			ev := s.hookEvent("periodic", nil, snap, &cfg)
			ev.Requestor, ev.RequestorHost = serverUser(), s.hostname
			out := s.hookRunner().Run(ctx, &h, ev, nil)
			s.logHookRun(&h, "periodic", &out)
		}
	})
}

func serverUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}
