package manager

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// describeItem applies reqs in turn to the base configuration and returns
// the values (joined by ",") of item in the description of the last
// request's object, as qmgr list would show them; "" when the item is not
// shown. A refused request returns its error.
func describeItem(t *testing.T, reqs []Request, item string) (string, error) {
	t.Helper()
	cfg := baseConfig()
	var last *Result
	for i := range reqs {
		res, err := Apply(cfg, testVnodes(), &reqs[i])
		if err != nil {
			return "", err
		}
		cfg, last = res.Config, res
	}
	req := reqs[len(reqs)-1]
	var obj Object
	switch req.Object {
	case Server:
		obj = DescribeServer(&cfg)
	case Queue:
		q := cfg.Queues[req.Name]
		obj = DescribeQueue(&q)
	case Sched:
		obj = DescribeSched(&cfg)
	case Hook:
		h := cfg.Hooks[req.Name]
		obj = DescribeHook(&h, true)
	case Resource:
		obj = DescribeResource(cfg.Defs[req.Name])
	case Node:
		if len(last.Vnodes) != 1 {
			t.Fatalf("node request stored %d vnodes", len(last.Vnodes))
		}
		obj = DescribeNode(last.Vnodes[0])
	}
	for _, it := range obj.Items {
		if it.Name == item {
			return strings.Join(it.Values, ","), nil
		}
	}
	return "", nil
}

func set(object, name string, attrs ...Attr) Request {
	return Request{Verb: Set, Object: object, Name: name, Attrs: attrs}
}

func unset(object, name string, attrs ...string) Request {
	r := Request{Verb: Unset, Object: object, Name: name}
	for _, n := range attrs {
		at := a(n, "", "")
		r.Attrs = append(r.Attrs, at)
	}
	return r
}

func create(object, name string, attrs ...Attr) Request {
	return Request{Verb: Create, Object: object, Name: name, Attrs: attrs}
}

// TestAttributeRules: for each attribute, what a set (or +=, -=, unset)
// stores, as qmgr list shows it, or the PBS error that refuses it.
func TestAttributeRules(t *testing.T) {
	srv := func(attrs ...Attr) Request { return set(Server, "", attrs...) }
	wq := func(attrs ...Attr) Request { return set(Queue, "workq", attrs...) }
	sch := func(attrs ...Attr) Request { return set(Sched, "", attrs...) }
	n1 := func(attrs ...Attr) Request { return set(Node, "n1", attrs...) }
	hk := create(Hook, "h")
	cases := []struct {
		name string
		reqs []Request
		item string
		want string
		code int // the last request is refused with this code
	}{
		// server
		{"scheduling true", []Request{srv(a("scheduling", "=", "t"))}, "scheduling", "True", 0},
		{"scheduling unset", []Request{srv(a("scheduling", "=", "true")), unset(Server, "", "scheduling")}, "scheduling", "False", 0},
		{"scheduling not a boolean", []Request{srv(a("scheduling", "=", "perhaps"))}, "", "", model.PBSEBadAttrVal},
		{"scheduling += refused", []Request{srv(a("scheduling", "+=", "true"))}, "", "", model.PBSEBadAttrVal},
		{"managers list", []Request{srv(a("managers", "=", "root@*,alice@h"))}, "managers", "root@*,alice@h", 0},
		{"managers +=", []Request{srv(a("managers", "=", "root@*")), srv(a("managers", "+=", "bob@h"))}, "managers", "root@*,bob@h", 0},
		{"managers -=", []Request{srv(a("managers", "=", "root@*,bob@h")), srv(a("managers", "-=", "root@*"))}, "managers", "bob@h", 0},
		{"managers with a space", []Request{srv(a("managers", "=", "a b"))}, "", "", model.PBSEBadAttrVal},
		{"operators", []Request{srv(a("operators", "=", "op@h"))}, "operators", "op@h", 0},
		{"acl_host_enable", []Request{srv(a("acl_host_enable", "=", "true"))}, "acl_host_enable", "True", 0},
		{"acl_hosts", []Request{srv(a("acl_hosts", "=", "login1,*.example.com"))}, "acl_hosts", "login1,*.example.com", 0},
		{"acl_user_enable", []Request{srv(a("acl_user_enable", "=", "1"))}, "acl_user_enable", "True", 0},
		{"acl_users", []Request{srv(a("acl_users", "=", "alice"))}, "acl_users", "alice", 0},
		{"acl_roots", []Request{srv(a("acl_roots", "=", "root@login1"))}, "acl_roots", "root@login1", 0},
		{"comment", []Request{srv(a("comment", "=", "hello"))}, "comment", "hello", 0},
		{"comment unset", []Request{srv(a("comment", "=", "hello")), unset(Server, "", "comment")}, "comment", "", 0},
		{"default_qsub_arguments", []Request{srv(a("default_qsub_arguments", "=", "-r n"))}, "default_qsub_arguments", "-r n", 0},
		{"flatuid", []Request{srv(a("flatuid", "=", "true"))}, "flatuid", "True", 0},
		{"query_other_jobs", []Request{srv(a("query_other_jobs", "=", "true"))}, "query_other_jobs", "True", 0},
		{"job_history_enable", []Request{srv(a("job_history_enable", "=", "true"))}, "job_history_enable", "True", 0},
		{"job_history_duration", []Request{srv(a("job_history_duration", "=", "01:00:00"))}, "job_history_duration", "01:00:00", 0},
		{"job_history_duration unset is the default", []Request{srv(a("job_history_duration", "=", "01:00:00")), unset(Server, "", "job_history_duration")}, "job_history_duration", model.FormatDuration(DefaultJobHistoryDuration), 0},
		{"job_history_duration negative", []Request{srv(a("job_history_duration", "=", "-5"))}, "", "", model.PBSEBadAttrVal},
		{"job_history_duration +=", []Request{srv(a("job_history_duration", "+=", "5"))}, "", "", model.PBSEBadAttrVal},
		{"max_array_size", []Request{srv(a("max_array_size", "=", "500"))}, "max_array_size", "500", 0},
		{"max_array_size not a number", []Request{srv(a("max_array_size", "=", "lots"))}, "", "", model.PBSEBadAttrVal},
		{"max_concurrent_provision", []Request{srv(a("max_concurrent_provision", "=", "3"))}, "max_concurrent_provision", "3", 0},
		{"max_job_sequence_id", []Request{srv(a("max_job_sequence_id", "=", "99999999"))}, "max_job_sequence_id", "99999999", 0},
		{"max_job_sequence_id too small", []Request{srv(a("max_job_sequence_id", "=", "5"))}, "", "", model.PBSEBadAttrVal},
		{"max_job_sequence_id too large", []Request{srv(a("max_job_sequence_id", "=", "9999999999999"))}, "", "", model.PBSEBadAttrVal},
		{"max_job_sequence_id unset", []Request{unset(Server, "", "max_job_sequence_id")}, "max_job_sequence_id", "9999999", 0},
		{"max_run", []Request{srv(a("max_run", "=", "[o:PBS_ALL=10],[u:PBS_GENERIC=2]"))}, "max_run", "[o:PBS_ALL=10],[u:PBS_GENERIC=2]", 0},
		{"max_run bad limit", []Request{srv(a("max_run", "=", "[x:foo=1]"))}, "", "", model.PBSEBadAttrVal},
		{"max_queued", []Request{srv(a("max_queued", "=", "[u:alice=3]"))}, "max_queued", "[u:alice=3]", 0},
		{"node_fail_requeue", []Request{srv(a("node_fail_requeue", "=", "60"))}, "node_fail_requeue", "60", 0},
		{"node_fail_requeue unset", []Request{srv(a("node_fail_requeue", "=", "60")), unset(Server, "", "node_fail_requeue")}, "node_fail_requeue", "310", 0},
		{"scheduler_iteration", []Request{srv(a("scheduler_iteration", "=", "30"))}, "scheduler_iteration", "30", 0},
		{"scheduler_iteration 0", []Request{srv(a("scheduler_iteration", "=", "0"))}, "", "", model.PBSEBadAttrVal},
		{"resources_default.walltime", []Request{srv(a("resources_default.walltime", "=", "1:00:00"))}, "resources_default.walltime", "01:00:00", 0},
		{"resources_default.mem", []Request{srv(a("resources_default.mem", "=", "2gb"))}, "resources_default.mem", "2gb", 0},
		{"resources_default bad amount", []Request{srv(a("resources_default.ncpus", "=", "many"))}, "", "", model.PBSEBadAttrVal},
		{"default_chunk.ncpus", []Request{srv(a("default_chunk.ncpus", "=", "2"))}, "default_chunk.ncpus", "2", 0},
		{"default_chunk job-wide resource", []Request{srv(a("default_chunk.walltime", "=", "10"))}, "", "", model.PBSEBadAttrVal},
		{"default_queue", []Request{create(Queue, "q2"), srv(a("default_queue", "=", "q2"))}, "default_queue", "q2", 0},
		{"server delete refused", []Request{{Verb: Delete, Object: Server}}, "", "", model.PBSEInvalidRequest},

		// queue
		{"queue priority", []Request{wq(a("priority", "=", "100"))}, "priority", "100", 0},
		{"queue priority range", []Request{wq(a("priority", "=", "2000"))}, "", "", model.PBSEBadAttrVal},
		{"queue priority negative", []Request{wq(a("priority", "=", "-1024"))}, "priority", "-1024", 0},
		{"queue_type prefix", []Request{wq(a("queue_type", "=", "Ex"))}, "queue_type", "Execution", 0},
		{"queue_type unset", []Request{unset(Queue, "workq", "queue_type")}, "queue_type", "Execution", 0},
		{"queue enabled", []Request{wq(a("enabled", "=", "false"))}, "enabled", "False", 0},
		{"queue started", []Request{wq(a("started", "=", "f"))}, "started", "False", 0},
		{"queue backfill_depth", []Request{wq(a("backfill_depth", "=", "3"))}, "backfill_depth", "3", 0},
		{"queue backfill_depth unset", []Request{wq(a("backfill_depth", "=", "3")), unset(Queue, "workq", "backfill_depth")}, "backfill_depth", "", 0},
		{"queue backfill_depth negative", []Request{wq(a("backfill_depth", "=", "-1"))}, "", "", model.PBSEBadAttrVal},
		{"queue resources_max.ncpus", []Request{wq(a("resources_max.ncpus", "=", "64"))}, "resources_max.ncpus", "64", 0},
		{"queue resources_min.mem", []Request{wq(a("resources_min.mem", "=", "1gb"))}, "resources_min.mem", "1gb", 0},
		{"queue resources_default.walltime", []Request{wq(a("resources_default.walltime", "=", "600"))}, "resources_default.walltime", "00:10:00", 0},
		{"queue default_chunk.mem", []Request{wq(a("default_chunk.mem", "=", "1gb"))}, "default_chunk.mem", "1gb", 0},
		{"queue resources_default unset", []Request{wq(a("resources_default.walltime", "=", "600")), unset(Queue, "workq", "resources_default.walltime")}, "resources_default.walltime", "", 0},
		{"queue max_run", []Request{wq(a("max_run", "=", "[o:PBS_ALL=4]"))}, "max_run", "[o:PBS_ALL=4]", 0},
		{"queue max_queued", []Request{wq(a("max_queued", "=", "[g:users=4]"))}, "max_queued", "[g:users=4]", 0},
		{"queue acl_user_enable", []Request{wq(a("acl_user_enable", "=", "true"))}, "acl_user_enable", "True", 0},
		{"queue acl_users", []Request{wq(a("acl_users", "=", "alice,bob"))}, "acl_users", "alice,bob", 0},
		{"queue acl_group_enable", []Request{wq(a("acl_group_enable", "=", "true"))}, "acl_group_enable", "True", 0},
		{"queue acl_groups", []Request{wq(a("acl_groups", "=", "users"))}, "acl_groups", "users", 0},
		{"queue unknown attribute", []Request{wq(a("colour", "=", "red"))}, "", "", model.PBSENoAttr},
		{"queue bad name", []Request{create(Queue, "bad name")}, "", "", model.PBSEBadAttrVal},
		{"queue without a name", []Request{create(Queue, "")}, "", "", model.PBSEUnknownQueue},
		{"new queue is stopped", []Request{create(Queue, "q2")}, "started", "False", 0},
		{"queue delete unknown", []Request{{Verb: Delete, Object: Queue, Name: "nosuch"}}, "", "", model.PBSEUnknownQueue},
		{"queue import refused", []Request{{Verb: Import, Object: Queue, Name: "workq"}}, "", "", model.PBSEInvalidRequest},

		// sched
		{"sched node_sort_key", []Request{sch(a("node_sort_key", "=", "ncpus HIGH"))}, "node_sort_key", "ncpus HIGH", 0},
		{"sched node_sort_key bad", []Request{sch(a("node_sort_key", "=", "ncpus SIDEWAYS"))}, "", "", model.PBSEBadAttrVal},
		{"sched node_sort_key unset", []Request{unset(Sched, "", "node_sort_key")}, "node_sort_key", "sort_priority HIGH", 0},
		{"sched job_sort_key", []Request{sch(a("job_sort_key", "=", "ncpus LOW"))}, "job_sort_key", "ncpus LOW", 0},
		{"sched job_sort_key unknown resource", []Request{sch(a("job_sort_key", "=", "nosuch HIGH"))}, "", "", model.PBSEBadAttrVal},
		{"sched by_queue", []Request{sch(a("by_queue", "=", "true"))}, "by_queue", "True", 0},
		{"sched round_robin", []Request{sch(a("round_robin", "=", "true"))}, "round_robin", "True", 0},
		{"sched job_sort_formula", []Request{sch(a("job_sort_formula", "=", "ncpus*2"))}, "job_sort_formula", "ncpus*2", 0},
		{"sched job_sort_formula bad", []Request{sch(a("job_sort_formula", "=", "ncpus*("))}, "", "", model.PBSEBadAttrVal},
		{"sched job_sort_formula_threshold", []Request{sch(a("job_sort_formula_threshold", "=", "2.5"))}, "job_sort_formula_threshold", "2.5", 0},
		{"sched job_sort_formula_threshold NaN", []Request{sch(a("job_sort_formula_threshold", "=", "NaN"))}, "", "", model.PBSEBadAttrVal},
		{"sched job_sort_formula_threshold unset", []Request{sch(a("job_sort_formula_threshold", "=", "2")), unset(Sched, "", "job_sort_formula_threshold")}, "job_sort_formula_threshold", "", 0},
		{"sched strict_ordering", []Request{sch(a("strict_ordering", "=", "true"))}, "strict_ordering", "True", 0},
		{"sched backfill_depth", []Request{sch(a("backfill_depth", "=", "4"))}, "backfill_depth", "4", 0},
		{"sched backfill_depth unset is 1", []Request{sch(a("backfill_depth", "=", "4")), unset(Sched, "", "backfill_depth")}, "backfill_depth", "1", 0},
		{"sched sched_min_interval", []Request{sch(a("sched_min_interval", "=", "250ms"))}, "sched_min_interval", "250ms", 0},
		{"sched sched_min_interval bad", []Request{sch(a("sched_min_interval", "=", "soon"))}, "", "", model.PBSEBadAttrVal},
		{"sched sched_min_interval unset", []Request{sch(a("sched_min_interval", "=", "1s")), unset(Sched, "", "sched_min_interval")}, "sched_min_interval", "", 0},
		{"sched provision_policy", []Request{sch(a("provision_policy", "=", AvoidProvision))}, "provision_policy", AvoidProvision, 0},
		{"sched provision_policy lookahead", []Request{sch(a("provision_policy", "=", LookaheadProvision))}, "provision_policy", LookaheadProvision, 0},
		{"sched unknown attribute", []Request{sch(a("colour", "=", "red"))}, "", "", model.PBSENoAttr},
		{"sched create refused", []Request{{Verb: Create, Object: Sched}}, "", "", model.PBSEInvalidRequest},

		// hook
		{"hook defaults", []Request{hk}, "fail_action", "none", 0},
		{"hook enabled", []Request{hk, set(Hook, "h", a("enabled", "=", "false"))}, "enabled", "false", 0},
		{"hook debug", []Request{hk, set(Hook, "h", a("debug", "=", "true"))}, "debug", "true", 0},
		{"hook event", []Request{hk, set(Hook, "h", a("event", "=", "queuejob,runjob"))}, "event", "queuejob,runjob", 0},
		{"hook event +=", []Request{hk, set(Hook, "h", a("event", "=", "queuejob")), set(Hook, "h", a("event", "+=", "movejob"))}, "event", "queuejob,movejob", 0},
		{"hook event empty", []Request{hk, set(Hook, "h", a("event", "=", "queuejob")), set(Hook, "h", a("event", "=", ""))}, "event", `""`, 0},
		{"hook event unset", []Request{hk, set(Hook, "h", a("event", "=", "queuejob")), unset(Hook, "h", "event")}, "event", `""`, 0},
		{"hook user pbsuser", []Request{hk, set(Hook, "h", a("user", "=", "pbsuser"))}, "user", "pbsuser", 0},
		{"hook alarm", []Request{hk, set(Hook, "h", a("alarm", "=", "10"))}, "alarm", "10", 0},
		{"hook alarm 0", []Request{hk, set(Hook, "h", a("alarm", "=", "0"))}, "", "", model.PBSEBadAttrVal},
		{"hook order", []Request{hk, set(Hook, "h", a("order", "=", "7"))}, "order", "7", 0},
		{"hook order too large", []Request{hk, set(Hook, "h", a("order", "=", "1001"))}, "", "", model.PBSEBadAttrVal},
		{"hook freq shown for periodic", []Request{hk, set(Hook, "h", a("event", "=", "periodic"), a("freq", "=", "30"))}, "freq", "30", 0},
		{"hook fail_action list drops none", []Request{hk, set(Hook, "h", a("event", "=", "exechost_startup")), set(Hook, "h", a("fail_action", "+=", "offline_vnodes"))}, "fail_action", "offline_vnodes", 0},
		{"hook fail_action -= back to none", []Request{hk, set(Hook, "h", a("event", "=", "execjob_begin"), a("fail_action", "=", "offline_vnodes")), set(Hook, "h", a("fail_action", "-=", "offline_vnodes"))}, "fail_action", "none", 0},
		{"hook fail_action unset", []Request{hk, set(Hook, "h", a("event", "=", "execjob_begin"), a("fail_action", "=", "offline_vnodes")), unset(Hook, "h", "fail_action")}, "fail_action", "none", 0},
		{"hook fail_action unknown", []Request{hk, set(Hook, "h", a("fail_action", "=", "panic"))}, "", "", PBSEHookError},
		{"hook type site", []Request{hk, set(Hook, "h", a("type", "=", "site"))}, "type", "site", 0},
		{"hook type pbs refused", []Request{hk, set(Hook, "h", a("type", "=", "pbs"))}, "", "", PBSEHookError},
		{"hook provision_mode", []Request{hk, set(Hook, "h", a("event", "=", "provision"), a("provision_mode", "=", "ssh"))}, "provision_mode", "ssh", 0},
		{"hook provision_mode default agent", []Request{hk, set(Hook, "h", a("event", "=", "provision"))}, "provision_mode", "agent", 0},
		{"hook provision_mode bad", []Request{hk, set(Hook, "h", a("provision_mode", "=", "cloud"))}, "", "", PBSEHookError},
		{"hook unknown attribute", []Request{hk, set(Hook, "h", a("colour", "=", "red"))}, "", "", model.PBSENoAttr},
		{"hook set unknown hook", []Request{set(Hook, "nosuch", a("enabled", "=", "true"))}, "", "", PBSEHookError},
		{"hook delete unknown hook", []Request{{Verb: Delete, Object: Hook, Name: "nosuch"}}, "", "", PBSEHookError},
		{"hook import empty script", []Request{hk, {Verb: Import, Object: Hook, Name: "h", ContentType: model.HookContentPython}}, "", "", PBSEHookError},
		{"hook import config", []Request{hk, {Verb: Import, Object: Hook, Name: "h", ContentType: model.HookContentConfig, Content: "k=v"}}, "enabled", "true", 0},

		// node
		{"node comment", []Request{n1(a("comment", "=", "broken fan"))}, "comment", "broken fan", 0},
		{"node comment unset", []Request{unset(Node, "n1", "comment")}, "comment", "", 0},
		{"node offline", []Request{n1(a("state", "=", "offline"))}, "state", "offline", 0},
		{"node offline -=", []Request{n1(a("state", "-=", "offline"))}, "state", "free", 0},
		{"node state unset", []Request{unset(Node, "n1", "state")}, "state", "free", 0},
		{"node sort_priority", []Request{n1(a("sort_priority", "=", "10"))}, "sort_priority", "10", 0},
		{"node priority alias", []Request{n1(a("priority", "=", "-3"))}, "sort_priority", "-3", 0},
		{"node sort_priority unset", []Request{unset(Node, "n1", "sort_priority")}, "sort_priority", "", 0},
		{"node provision_enable", []Request{n1(a("provision_enable", "=", "true"))}, "provision_enable", "True", 0},
		{"node provision_enable bad", []Request{n1(a("provision_enable", "=", "maybe"))}, "", "", model.PBSEBadAttrVal},
		{"node provision_enable unset", []Request{unset(Node, "n1", "provision_enable")}, "provision_enable", "", 0},
		{"node current_aoe unset", []Request{unset(Node, "n1", "current_aoe")}, "current_aoe", "", 0},
		{"node current_aoe += refused", []Request{n1(a("current_aoe", "+=", "rhel"))}, "", "", model.PBSEBadAttrVal},
		{"node resources_available.mem", []Request{n1(a("resources_available.mem", "=", "8gb"))}, "resources_available.mem", "8gb", 0},
		{"node resources_available.ncpus unset", []Request{unset(Node, "n1", "resources_available.ncpus")}, "resources_available.ncpus", "", 0},
		{"node resources_available.aoe on server host", []Request{{Verb: Set, Object: Node, Name: "head", ServerHost: "head", Attrs: []Attr{a("resources_available.aoe", "=", "rhel")}}}, "", "", PBSEProvHeadError},
		{"node current_aoe on provisioning vnode", []Request{set(Node, "provn", a("current_aoe", "=", "rhel"))}, "", "", PBSENodeProvNoAct},
		{"node aoe on provisioning vnode", []Request{set(Node, "provn", a("resources_available.aoe", "=", "rhel"))}, "", "", PBSENodeProvNoAct},
		{"node unknown attribute", []Request{n1(a("colour", "=", "red"))}, "", "", model.PBSENoAttr},
		{"node create", []Request{create(Node, "n9")}, "state", "state-unknown,down", 0},
		{"node create bad name", []Request{create(Node, "n 9")}, "", "", model.PBSEBadAttrVal},
		{"node delete unknown", []Request{{Verb: Delete, Object: Node, Name: "nosuch"}}, "", "", model.PBSEUnknownNode},
		{"node import refused", []Request{{Verb: Import, Object: Node, Name: "n1"}}, "", "", model.PBSEInvalidRequest},

		// resource
		{"resource type", []Request{create(Resource, "scratch", a("type", "=", "size"))}, "type", "size", 0},
		{"resource flag", []Request{create(Resource, "lic", a("type", "=", "long"), a("flag", "=", "q"))}, "flag", "q", 0},
		{"resource set type", []Request{create(Resource, "lic"), set(Resource, "lic", a("type", "=", "float"))}, "type", "float", 0},
		{"resource unset type is long", []Request{create(Resource, "lic", a("type", "=", "float")), unset(Resource, "lic", "type")}, "type", "long", 0},
		{"resource unset flag", []Request{create(Resource, "lic", a("flag", "=", "h")), unset(Resource, "lic", "flag")}, "flag", "", 0},
		{"resource type +=", []Request{create(Resource, "lic", a("type", "+=", "long"))}, "", "", model.PBSEBadAttrVal},
		{"resource set builtin", []Request{set(Resource, "ncpus", a("type", "=", "float"))}, "", "", model.PBSEPerm},
		{"resource set unknown", []Request{set(Resource, "nosuch", a("type", "=", "float"))}, "", "", model.PBSEUnknownResource},
		{"resource delete unknown", []Request{{Verb: Delete, Object: Resource, Name: "nosuch"}}, "", "", model.PBSEUnknownResource},
		{"resource in use not deleted", []Request{create(Resource, "lic"), srv(a("resources_default.lic", "=", "1")), {Verb: Delete, Object: Resource, Name: "lic"}}, "", "", PBSEResourceBusyUse},
		{"resource in a queue not deleted", []Request{create(Resource, "lic"), wq(a("resources_max.lic", "=", "1")), {Verb: Delete, Object: Resource, Name: "lic"}}, "", "", PBSEResourceBusyUse},
		{"resource import refused", []Request{{Verb: Import, Object: Resource, Name: "lic"}}, "", "", model.PBSEInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := describeItem(t, tc.reqs, tc.item)
			if tc.code != 0 {
				pe, ok := model.AsPBSError(err)
				if !ok || pe.Code != tc.code {
					t.Fatalf("want PBS error %d, got %v (item %q = %q)", tc.code, err, tc.item, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got != tc.want {
				t.Fatalf("%s = %q, want %q", tc.item, got, tc.want)
			}
		})
	}
}

// TestDeleteUnusedResource: a custom resource nothing refers to goes, and
// the vnodes' capacities are derived again.
func TestDeleteUnusedResource(t *testing.T) {
	cfg := baseConfig()
	res, err := Apply(cfg, testVnodes(), &Request{Verb: Create, Object: Resource, Name: "lic"})
	if err != nil {
		t.Fatal(err)
	}
	if got := CustomResources(res.Config.Defs); len(got) != 1 || got[0].Name != "lic" {
		t.Fatalf("custom resources = %+v", got)
	}
	res, err = Apply(res.Config, testVnodes(), &Request{Verb: Delete, Object: Resource, Name: "lic"})
	if err != nil || !res.ResourcesChanged {
		t.Fatalf("delete: %v (changed %v)", err, res != nil && res.ResourcesChanged)
	}
	if got := CustomResources(res.Config.Defs); len(got) != 0 {
		t.Fatalf("custom resources after delete = %+v", got)
	}
}
