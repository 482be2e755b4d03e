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
		if h.Debug || out.Failed {
			s.logger.Printf("hook %s (%s): accept=%v exit=%d msg=%q stderr=%q", h.Name, ev.Type, out.Accept, out.Exit, out.Message, out.Stderr)
		}
		if !out.Accept {
			return outs, &model.PBSError{Code: manager.PBSEHookError, Msg: out.Message}
		}
		outs = append(outs, out)
	}
	return outs, nil
}

func (s *Server) hookRunner() *hooks.Runner {
	return &hooks.Runner{Dir: hooks.ScriptDir(s.cfg.DataDir)}
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

// queuejobHooks runs queuejob hooks on a job about to be submitted and
// applies their changes.
func (s *Server) queuejobHooks(ctx context.Context, j *model.Job, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, "queuejob")) == 0 {
		return nil
	}
	outs, err := s.runServerHooks(ctx, cfg, hooks.Event{Type: "queuejob", Requestor: requestor(id), Job: j})
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

// jobHooks runs an accept/reject event (modifyjob, movejob) on a job. For
// movejob, dest is the destination queue: the hook sees the job in it and
// the queue it leaves as src_queue.
func (s *Server) jobHooks(ctx context.Context, event string, j *model.Job, dest string, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, event)) == 0 {
		return nil
	}
	ev := hooks.Event{Type: event, Requestor: requestor(id), Job: j}
	if dest != "" {
		moved := j.Copy()
		moved.Queue = dest
		ev.Job, ev.SrcQueue = moved, j.Queue
	}
	_, err := s.runServerHooks(ctx, cfg, ev)
	return err
}

// ResvsubHooks is the call point for resvsub hooks; reservations arrive
// with the reservations issue, which calls it before committing one.
func (s *Server) ResvsubHooks(ctx context.Context, requestor string) error {
	cfg := s.state().Config()
	_, err := s.runServerHooks(ctx, &cfg, hooks.Event{Type: "resvsub", Requestor: requestor})
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
			_, err = s.runServerHooks(context.Background(), cfg, hooks.Event{Type: "runjob", Requestor: "Scheduler@" + s.hostname, Job: j, Vnodes: vnodes})
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
		cfg := s.state().Config()
		now := time.Now()
		for _, h := range model.OrderedHooks(cfg.Hooks, "periodic") {
			h := h
			if now.Sub(last[h.Name]) < time.Duration(h.Freq)*time.Second {
				continue
			}
			last[h.Name] = now
			out := s.hookRunner().Run(ctx, &h, hooks.Event{Type: "periodic", Requestor: serverUser()}, nil)
			if !out.Accept || h.Debug {
				s.logger.Printf("periodic hook %s: accept=%v exit=%d msg=%q", h.Name, out.Accept, out.Exit, out.Message)
			}
		}
	})
}

func serverUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}
