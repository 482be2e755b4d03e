package manager

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// Apply applies one request to cfg and the vnodes in st. It returns the
// complete new configuration; on error nothing may be stored.
func Apply(cfg model.ServerConfig, st VnodeSource, req *Request) (*Result, error) {
	res := &Result{Config: cfg.Copy()}
	c := &res.Config
	var err error
	switch req.Object {
	case Server:
		err = applyServer(c, req)
	case Queue:
		err = applyQueue(c, st, req)
	case Sched:
		err = applySched(c, req)
	case Resource:
		err = applyResource(c, st, req, res)
	case Hook:
		err = applyHook(c, req)
	case Node:
		err = applyNode(c, st, req, res)
	default:
		err = &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: unknown object type " + req.Object}
	}
	if err != nil {
		return nil, err
	}
	if psetsChanged(&cfg, c) { // placement sets (psets.go)
		res.ResourcesChanged = true
	}
	return res, nil
}

func badVerb(req *Request) error {
	return &model.PBSError{Code: model.PBSEInvalidRequest, Msg: fmt.Sprintf("Invalid request: cannot %s a %s", req.Verb, req.Object)}
}

// eachAttr runs set on every attribute; unset requests carry no operator.
func eachAttr(req *Request, set func(Attr) error) error {
	for _, a := range req.Attrs {
		if req.Verb == Unset {
			a.Op, a.Value = "", ""
		} else if a.Op == "" {
			return badValue(a)
		}
		if err := set(a); err != nil {
			return err
		}
	}
	return nil
}

// --- server -----------------------------------------------------------------

// DefaultJobHistoryDuration is PBS's two weeks.
const DefaultJobHistoryDuration = 14 * 24 * 3600

func applyServer(c *model.ServerConfig, req *Request) error {
	if req.Verb != Set && req.Verb != Unset {
		return badVerb(req)
	}
	return eachAttr(req, func(a Attr) error { return setServerAttr(c, a) })
}

func setServerAttr(c *model.ServerConfig, a Attr) error {
	switch a.Name {
	case "scheduling":
		return setBool(&c.Scheduling, a, false)
	case "default_queue":
		if a.Op != "" {
			if _, ok := c.Queues[a.Value]; !ok {
				return model.Err(model.PBSEUnknownQueue)
			}
		}
		return setString(&c.DefaultQueue, a, "")
	case "managers":
		return setList(&c.Managers, a, validUserHost)
	case "operators":
		return setList(&c.Operators, a, validUserHost)
	case "acl_host_enable":
		return setBool(&c.ACLHostEnable, a, false)
	case "acl_hosts":
		return setList(&c.ACLHosts, a, nil)
	case "acl_user_enable":
		return setBool(&c.ACLUserEnable, a, false)
	case "acl_users":
		return setList(&c.ACLUsers, a, validUserHost)
	case "acl_roots":
		return setList(&c.ACLRoots, a, validUserHost)
	case "comment":
		return setString(&c.Comment, a, "")
	case "default_qsub_arguments":
		return setString(&c.DefaultQsubArguments, a, "")
	case "flatuid":
		return setBool(&c.FlatUID, a, false)
	case "job_history_enable":
		return setBool(&c.JobHistoryEnable, a, false)
	case "job_history_duration":
		return setDuration(&c.JobHistoryDuration, a, DefaultJobHistoryDuration)
	case "max_array_size":
		return setInt(&c.MaxArraySize, a, 0, 0)
	case "max_concurrent_provision":
		return setInt(&c.MaxConcurrentProvision, a, 0, 1)
	case "reserve_retry_time":
		return setInt(&c.ReserveRetryTime, a, 0, 0)
	case "max_job_sequence_id":
		if a.Op == "" {
			c.MaxJobSequenceID = 9999999
			return nil
		}
		if err := setInt(&c.MaxJobSequenceID, a, 9999999, 9999999); err != nil || c.MaxJobSequenceID > 999999999999 {
			return badValue(a)
		}
		return nil
	case "max_run":
		return setLimit(&c.MaxRun, a)
	case "max_queued":
		return setLimit(&c.MaxQueued, a)
	case "max_run_soft":
		return setLimit(&c.MaxRunSoft, a)
	case "node_fail_requeue":
		return setInt(&c.NodeFailRequeue, a, 310, 0)
	case "query_other_jobs":
		return setBool(&c.QueryOtherJobs, a, false)
	case "mail_from":
		return setMailFrom(&c.MailFrom, a)
	case "mail_program":
		return setMailProgram(&c.MailProgram, a)
	case "scheduler_iteration":
		return setInt(&c.SchedulerIteration, a, 0, 1)
	case "log_events":
		v := int64(c.LogEventMask())
		if err := setInt(&v, a, model.DefaultLogEvents, 0); err != nil {
			return err
		}
		if a.Op == "" {
			c.LogEvents = nil
		} else {
			c.LogEvents = &v
		}
		return nil
	case "resources_default":
		return setResource(&c.ResourcesDefault, a, c.Defs, false)
	case "default_chunk":
		return setResource(&c.DefaultChunk, a, c.Defs, true)
	case "node_group_enable":
		return setBool(&c.NodeGroupEnable, a, false)
	case "node_group_key":
		return setGroupKey(&c.NodeGroupKey, a, c.Defs)
	}
	return noAttr(a)
}

// validUserHost accepts "user", "user@host" and "*@host" forms.
func validUserHost(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t")
}

func setDuration(dst *int64, a Attr, def int64) error {
	if a.Op == "" {
		*dst = def
		return nil
	}
	if a.Op != "=" {
		return badValue(a)
	}
	secs, err := model.ParseDuration(a.Value)
	if err != nil || secs < 0 {
		return badValue(a)
	}
	*dst = secs
	return nil
}

// --- queue ------------------------------------------------------------------

func applyQueue(c *model.ServerConfig, st VnodeSource, req *Request) error {
	if req.Name == "" {
		return model.Err(model.PBSEUnknownQueue)
	}
	q, exists := c.Queues[req.Name]
	switch req.Verb {
	case Create:
		if exists {
			return perr(PBSEQueueExists)
		}
		if !validName(req.Name) {
			return model.Errorf(model.PBSEBadAttrVal, " queue name")
		}
		// A new queue is an execution queue, disabled and stopped, as in PBS.
		q = model.QueueConfig{Name: req.Name, Type: "execution"}
	case Delete:
		if !exists {
			return model.Err(model.PBSEUnknownQueue)
		}
		if st.QueueJobs(req.Name) > 0 {
			return perr(PBSEObjBusy)
		}
		delete(c.Queues, req.Name)
		if c.DefaultQueue == req.Name {
			c.DefaultQueue = ""
		}
		return nil
	case Set, Unset:
		if !exists {
			return model.Err(model.PBSEUnknownQueue)
		}
	default:
		return badVerb(req)
	}
	if err := eachAttr(req, func(a Attr) error { return setQueueAttr(&q, c.Defs, a) }); err != nil {
		return err
	}
	c.Queues[req.Name] = q
	return nil
}

func validName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func setQueueAttr(q *model.QueueConfig, defs model.ResourceDefs, a Attr) error {
	switch a.Name {
	case "queue_type":
		if a.Op == "" {
			q.Type = "execution"
			return nil
		}
		// PBS accepts any prefix of Execution/Route; routing queues come later.
		v := strings.ToLower(a.Value)
		if v == "" || !strings.HasPrefix("execution", v) {
			return badValue(a)
		}
		q.Type = "execution"
		return nil
	case "enabled":
		return setBool(&q.Enabled, a, false)
	case "started":
		return setBool(&q.Started, a, false)
	case "priority":
		if err := setSmallInt(&q.Priority, a, 0, -1024, 1023); err != nil {
			return err
		}
		return nil
	case "backfill_depth":
		if a.Op == "" {
			q.BackfillDepth = nil
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(a.Value))
		if err != nil || n < 0 || a.Op != "=" {
			return badValue(a)
		}
		q.BackfillDepth = &n
		return nil
	case "resources_max":
		return setResource(&q.ResourcesMax, a, defs, false)
	case "resources_min":
		return setResource(&q.ResourcesMin, a, defs, false)
	case "resources_default":
		return setResource(&q.ResourcesDefault, a, defs, false)
	case "default_chunk":
		return setResource(&q.DefaultChunk, a, defs, true)
	case "max_run":
		return setLimit(&q.MaxRun, a)
	case "max_queued":
		return setLimit(&q.MaxQueued, a)
	case "max_run_soft":
		return setLimit(&q.MaxRunSoft, a)
	case "acl_user_enable":
		return setBool(&q.ACLUserEnable, a, false)
	case "acl_users":
		return setList(&q.ACLUsers, a, validUserHost)
	case "acl_group_enable":
		return setBool(&q.ACLGroupEnable, a, false)
	case "acl_groups":
		return setList(&q.ACLGroups, a, validUserHost)
	case "node_group_key":
		return setGroupKey(&q.NodeGroupKey, a, defs)
	case "acl_host_enable":
		return setBool(&q.ACLHostEnable, a, false)
	case "acl_hosts":
		return setList(&q.ACLHosts, a, nil)
	}
	return noAttr(a)
}

// --- sched ------------------------------------------------------------------

// Provisioning policies.
const (
	AggressiveProvision = "aggressive_provision"
	AvoidProvision      = "avoid_provision"
	// LookaheadProvision is Strata's own (scheduler/aoe_lookahead.go).
	LookaheadProvision = "lookahead_provision"
)

func applySched(c *model.ServerConfig, req *Request) error {
	if req.Verb != Set && req.Verb != Unset {
		return badVerb(req)
	}
	if req.Name != "" && req.Name != "default" {
		return &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: the only scheduler is default"}
	}
	s := &c.Sched
	return eachAttr(req, func(a Attr) error {
		switch a.Name {
		case "provision_policy":
			if a.Op != "" && a.Value != AggressiveProvision && a.Value != AvoidProvision && a.Value != LookaheadProvision {
				return badValue(a)
			}
			return setString(&s.ProvisionPolicy, a, "")
		case "node_sort_key":
			if err := setList(&c.NodeSortKeys, a, validNodeSortKey(c.Defs)); err != nil {
				return err
			}
			if a.Op == "" {
				c.NodeSortKeys = []string{"sort_priority HIGH"}
			}
			return nil
		case "job_sort_key":
			return setList(&s.JobSortKeys, a, validJobSortKey(c.Defs))
		case "by_queue":
			return setBool(&s.ByQueue, a, false)
		case "round_robin":
			return setBool(&s.RoundRobin, a, false)
		case "job_sort_formula":
			if a.Op != "" {
				if _, err := policy.ParseFormula(a.Value); err != nil {
					return badValue(a)
				}
			}
			return setString(&s.JobSortFormula, a, "")
		case "job_sort_formula_threshold":
			if a.Op == "" {
				s.JobSortFormulaThreshold = nil
				return nil
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
			// NaN and infinities cannot be encoded in JSON: stored, they
			// made every later snapshot of the state fail.
			if err != nil || a.Op != "=" || math.IsNaN(f) || math.IsInf(f, 0) {
				return badValue(a)
			}
			s.JobSortFormulaThreshold = &f
			return nil
		case "strict_ordering":
			return setBool(&s.StrictOrdering, a, false)
		case "backfill_depth":
			return setInt(&s.BackfillDepth, a, 1, 0)
		case "do_not_span_psets":
			return setBool(&s.DoNotSpanPsets, a, false)
		case "only_explicit_psets":
			return setBool(&s.OnlyExplicitPsets, a, false)
		case "sched_min_interval":
			if a.Op == "" {
				s.MinIntervalMs = 0
				return nil
			}
			ms, err := parseMillis(a.Value)
			if err != nil || a.Op != "=" {
				return badValue(a)
			}
			s.MinIntervalMs = ms
			return nil
		}
		if handled, err := applyPreemptAttr(s, a); handled { // apply_preempt.go
			return err
		}
		if ok, err := applyFairshareAttr(c, a); ok { // fairshare.go
			return err
		}
		return noAttr(a)
	})
}
