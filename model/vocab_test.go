package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNodeStateNames(t *testing.T) {
	for _, tc := range []struct {
		s    NodeState
		want string
	}{
		{0, "free"},
		{NodeDown | NodeOffline, "down,offline"},
		{NodeStateUnknown | NodeDown, "state-unknown,down"},
		{NodeJobBusy, "job-busy"},
		{NodeProvisioning | NodeDown, "provisioning"},
		{NodeWaitProvisioning, "wait-provisioning"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.s, got, tc.want)
		}
	}
	for _, name := range []string{"free", "down", "offline", "job-exclusive", "Stale"} {
		s, ok := ParseNodeState(name)
		if !ok || s.String() != name {
			t.Errorf("ParseNodeState(%q) = %v %v", name, s, ok)
		}
	}
	if _, ok := ParseNodeState("asleep"); ok {
		t.Error("asleep parsed")
	}
}

func TestVnodeDerivedAttributes(t *testing.T) {
	defs := BuiltinResources()
	v := &Vnode{Name: "n1", Available: map[string]string{"ncpus": "4", "mem": "2gb", "aoe": "rhel,sles", "host": "n1"},
		Admin: map[string]string{"resources_available.ncpus": "2", "sort_priority": "7", "provision_enable": "True", "current_aoe": "rhel", "comment": "c"},
		Jobs:  map[string]int{"10.svr": 2, "9.svr": 1}}
	v.ApplyAdmin()
	v.DeriveCapacity(defs)
	if v.Capacity["ncpus"] != 2 || v.Capacity["mem"] != 2<<30 || v.Priority != 7 || !v.ProvisionEnable || v.CurrentAOE != "rhel" || v.Comment != "c" {
		t.Fatalf("after admin: %+v", v)
	}
	if got := v.AOEs(); !slices.Equal(got, []string{"rhel", "sles"}) {
		t.Errorf("AOEs = %v", got)
	}
	if got := v.JobSlots(); !slices.Equal(got, []string{"9.svr/0", "10.svr/1", "10.svr/2"}) {
		t.Errorf("JobSlots = %v", got)
	}
	v.Assigned = map[string]float64{"ncpus": 2}
	v.RecomputeBusy()
	if v.State != NodeJobBusy || v.Free("ncpus") != 0 {
		t.Errorf("full vnode: state %v free %v", v.State, v.Free("ncpus"))
	}
	v.ExclusiveJob = "9.svr"
	v.RecomputeBusy()
	if v.State != NodeJobExclusive {
		t.Errorf("exclusive vnode: state %v", v.State)
	}
	c := v.Copy()
	c.Available["ncpus"], c.Jobs["11.svr"], c.Admin["comment"] = "99", 1, "x"
	if v.Available["ncpus"] == "99" || len(v.Jobs) != 2 || v.Admin["comment"] != "c" {
		t.Error("Copy shares maps with the original")
	}
	if (&Vnode{}).AOEs() != nil {
		t.Error("AOEs of a vnode without aoe")
	}
}

func TestJobHelpers(t *testing.T) {
	defs := BuiltinResources()
	j := &Job{ID: "5.svr", Seq: 5, State: StateRunning, Env: []EnvVar{{Name: "PBS_O_HOME", Value: "/home/a"}},
		Exec: []ExecChunk{
			{Shares: []VnodeShare{{Vnode: "n1[0]", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}},
			{Shares: []VnodeShare{{Vnode: "n1[1]", Host: "n1", Amounts: map[string]float64{"ncpus": 1}}, {Vnode: "n2", Host: "n2"}}},
		},

		JobExt: &JobExt{EstExec: []ExecChunk{{Shares: []VnodeShare{{Vnode: "n3", Host: "n3", Amounts: map[string]float64{"ncpus": 4}}}}}},
	}
	if got := j.Hosts(); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Errorf("Hosts = %v", got)
	}
	if got := j.Vnodes(); !slices.Equal(got, []string{"n1[0]", "n1[1]", "n2"}) {
		t.Errorf("Vnodes = %v", got)
	}
	if got := j.EstExecVnode(defs); got != "(n3:ncpus=4)" {
		t.Errorf("EstExecVnode = %q", got)
	}
	if !j.IsRunning() || j.IsFinished() || j.IsArray() || j.IsSubjob() || j.OrderRank() != 5 {
		t.Errorf("predicates of a running plain job")
	}
	rank := int64(2)
	j.Rank = &rank
	if j.OrderRank() != 2 {
		t.Errorf("qorder rank ignored")
	}
	if j.EnvValue("PBS_O_HOME") != "/home/a" || j.EnvValue("NOPE") != "" {
		t.Errorf("EnvValue")
	}
	j.State = StateFinished
	if !j.IsFinished() || j.IsRunning() {
		t.Errorf("predicates of a finished job")
	}
	c := j.Copy()
	c.ResourceList = map[string]string{"x": "1"}
	if j.ResourceList != nil {
		t.Error("Copy shares Resource_List")
	}
}

func TestArrayHelpers(t *testing.T) {
	a, err := ParseArraySpec("1-9:2")
	if err != nil {
		t.Fatal(err)
	}
	a.Queued = IndexSet{}.Add(0, a.Size()-1)
	if a.Begun() || a.Complete() || a.Running() != 0 {
		t.Fatalf("fresh array: begun %v complete %v running %d", a.Begun(), a.Complete(), a.Running())
	}
	if o, ok := a.Ordinal(5); !ok || o != 2 {
		t.Errorf("Ordinal(5) = %d %v", o, ok)
	}
	if _, ok := a.Ordinal(4); ok {
		t.Error("4 is not an index of 1-9:2")
	}
	a.Queued = a.Queued.Remove(0, 1)
	a.Done = IndexSet{}.AddSet(IndexSet{{0, 0}})
	if !a.Begun() || a.Complete() || a.Running() != 1 {
		t.Errorf("after two starts: begun %v complete %v running %d", a.Begun(), a.Complete(), a.Running())
	}
	c := a.Copy()
	c.Step = 3
	if a.Step != 2 {
		t.Error("Copy shares the state")
	}
	p := &Job{ID: FormatArrayID(7, "svr"), Array: a, Output: "h:/o.^array_index^", Token: "t"}
	if p.ID != "7[].svr" || !p.IsArray() {
		t.Fatalf("parent %s", p.ID)
	}
	s := p.NewSubjob(3)
	if s.ID != "7[3].svr" || !s.IsSubjob() || s.Output != "h:/o.3" || s.Array != nil || s.Token != "" || s.State != StateQueued {
		t.Errorf("subjob %+v", s)
	}
}

func TestReservationHelpers(t *testing.T) {
	if ResvStateShort(ResvConfirmed) != "CO" || ResvStateLong(ResvConfirmed) != "RESV_CONFIRMED" {
		t.Error("confirmed names")
	}
	if ResvStateShort(99) != "??" || ResvStateLong(-1) != "RESV_NONE" {
		t.Error("out of range names")
	}
	id := FormatResvID(ResvPrefixStanding, 12, "svr")
	if id != "S12.svr" || ResvQueueName(id) != "S12" || ResvQueueName("R3") != "R3" {
		t.Errorf("ids %s %s", id, ResvQueueName(id))
	}
	for name, want := range map[string]bool{"R12": true, "S1": true, "R": false, "workq": false, "R1x": false} {
		if IsResvQueue(name) != want {
			t.Errorf("IsResvQueue(%q) != %v", name, want)
		}
	}
	r := &Reservation{ID: id, State: ResvRunning, Nodes: []ExecChunk{
		{Shares: []VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}},
		{Shares: []VnodeShare{{Vnode: "n1", Host: "n1"}, {Vnode: "n2", Host: "n2", AOE: "rhel"}}},
	}}
	if !r.Standing() || !r.Active() {
		t.Error("standing running reservation")
	}
	if got := r.ResvVnodes(); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Errorf("ResvVnodes = %v", got)
	}
	if got := r.ResvNodes(BuiltinResources()); got != "(n1:ncpus=2)+(n1+n2:aoe=rhel)" {
		t.Errorf("ResvNodes = %q", got)
	}
	c := r.Copy()
	c.Nodes[0] = ExecChunk{}
	if len(r.Nodes[0].Shares) != 1 {
		t.Error("Copy shares nodes")
	}
	r.Gone = 1
	if r.Active() {
		t.Error("a gone reservation is active")
	}
}

func TestPBSErrors(t *testing.T) {
	e := Err(PBSEPerm)
	if e.Msg != Message(PBSEPerm) || e.ExitCode() != PBSEPerm%256 {
		t.Errorf("Err(PBSEPerm) = %+v exit %d", e, e.ExitCode())
	}
	if (&PBSError{Code: 256}).ExitCode() != 1 {
		t.Error("a code multiple of 256 exits 0")
	}
	if got := Errorf(1, "").Msg; !strings.Contains(got, "error 1") {
		t.Errorf("unknown code text %q", got)
	}
	wrapped := wrap(e)
	if pe, ok := AsPBSError(wrapped); !ok || pe.Code != PBSEPerm {
		t.Error("AsPBSError through a wrap")
	}
	if _, ok := AsPBSError(wrap(nil)); ok {
		t.Error("AsPBSError of a plain error")
	}
}

func TestSmallFormatters(t *testing.T) {
	if FormatJobID(12, "svr") != "12.svr" {
		t.Error("FormatJobID")
	}
	for _, tc := range []struct {
		b      int64
		digits int
		want   string
	}{{512, 4, "512b"}, {2 << 30, 3, "2gb"}, {251 << 30, 3, "251gb"}, {5000, 3, "5kb"}} {
		if got := FormatSizeShort(tc.b, tc.digits); got != tc.want {
			t.Errorf("FormatSizeShort(%d, %d) = %q, want %q", tc.b, tc.digits, got, tc.want)
		}
	}
	r := &AcctRecord{Time: time.Date(2026, 3, 6, 23, 30, 0, 0, time.UTC).Unix()}
	if r.Day(time.UTC) != "20260306" {
		t.Errorf("Day = %s", r.Day(time.UTC))
	}
	for exit, want := range map[int]bool{ExitFailHookRerun: true, ExitHookRerun: true, ExitHookError: true, 0: false, 1: false} {
		if RequeueExit(exit) != want {
			t.Errorf("RequeueExit(%d) != %v", exit, want)
		}
	}
	if ProvStatKey("n1", "rhel") != "n1/rhel" {
		t.Error("ProvStatKey")
	}
	if (ManagerAttr{Name: "resources_max", Resource: "ncpus"}).Key() != "resources_max.ncpus" || (ManagerAttr{Name: "comment"}).Key() != "comment" {
		t.Error("ManagerAttr.Key")
	}
}

func TestLimitFor(t *testing.T) {
	ls, err := ParseLimits("[u:PBS_GENERIC=2],[u:alice=5],[g:users=3]")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind byte
		name string
		want int64
		ok   bool
	}{{'u', "alice", 5, true}, {'u', "bob", 2, true}, {'g', "users", 3, true}, {'g', "staff", 0, false}, {'o', "PBS_ALL", 0, false}} {
		got, ok := LimitFor(ls, tc.kind, tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LimitFor(%c, %s) = %d %v", tc.kind, tc.name, got, ok)
		}
	}
}

func TestSelectAndPlaceHelpers(t *testing.T) {
	defs := BuiltinResources()
	sel, err := ParseSelect("1:ncpus=2:aoe=rhel+2:ncpus=1", defs)
	if err != nil {
		t.Fatal(err)
	}
	if SelectAOE(sel) != "rhel" || CheckAOEChunks(sel) != nil {
		t.Errorf("one AOE: %q %v", SelectAOE(sel), CheckAOEChunks(sel))
	}
	two, _ := ParseSelect("1:ncpus=1:aoe=rhel+1:ncpus=1:aoe=sles", defs)
	if pe, ok := AsPBSError(CheckAOEChunks(two)); !ok || pe.Code != PBSEIvalAOEChunk {
		t.Error("two AOEs accepted")
	}
	ch, err := sel[1].WithDefault("mem", "1gb", defs)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ch.Get("mem"); !ok {
		t.Error("default mem not added")
	}
	if _, ok := sel[1].Get("mem"); ok {
		t.Error("WithDefault changed its receiver")
	}
	if same, _ := ch.WithDefault("mem", "8gb", defs); same.Consume["mem"] != ch.Consume["mem"] {
		t.Error("a default overrode the request")
	}
	if (Place{}).ArrangementOrFree() != PlaceFree || (Place{Arrangement: PlacePack}).ArrangementOrFree() != PlacePack {
		t.Error("ArrangementOrFree")
	}
	for spec, ok := range map[string]bool{"2:ncpus=4:foo=bar": true, "ncpus=1+mem=1gb": true, "1:ncpus": false, "1:=2": false} {
		if err := CheckSelectSyntax(spec); (err == nil) != ok {
			t.Errorf("CheckSelectSyntax(%q) = %v", spec, err)
		}
	}
}

func TestResourceDefValidate(t *testing.T) {
	for _, tc := range []struct {
		d  ResourceDef
		ok bool
	}{
		{ResourceDef{Name: "lic", Type: TypeLong, Flags: "q"}, true},
		{ResourceDef{Name: "scratch", Type: TypeSize, Flags: "nh"}, true},
		{ResourceDef{Name: "", Type: TypeLong}, false},
		{ResourceDef{Name: "a.b", Type: TypeLong}, false},
		{ResourceDef{Name: "x", Type: "complex"}, false},
		{ResourceDef{Name: "x", Type: TypeLong, Flags: "z"}, false},
	} {
		if err := tc.d.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%+v) = %v", tc.d, err)
		}
	}
}

func TestServerConfigHelpers(t *testing.T) {
	c := ServerConfig{Queues: map[string]QueueConfig{"q": {Name: "q", ResourcesDefault: map[string]string{"walltime": "10"}}},
		Hooks: map[string]Hook{"h": {Name: "h", Events: []string{"queuejob"}}}, Managers: []string{"root@*"}}
	d := c.Copy()
	d.Queues["q"].ResourcesDefault["walltime"] = "20"
	d.Hooks["h"].Events[0] = "runjob"
	d.Managers[0] = "x"
	if c.Queues["q"].ResourcesDefault["walltime"] != "10" || c.Hooks["h"].Events[0] != "queuejob" || c.Managers[0] != "root@*" {
		t.Error("Copy shares state with the original")
	}
	if c.RootMaySubmit() {
		t.Error("root may submit by default")
	}
	c.ACLRoots = []string{"root@login1"}
	if !c.RootMaySubmit() {
		t.Error("acl_roots root@login1")
	}
	if c.ProvisionConcurrency() != 5 {
		t.Error("max_concurrent_provision default")
	}
	c.MaxConcurrentProvision = 2
	if c.ProvisionConcurrency() != 2 {
		t.Error("max_concurrent_provision")
	}
	op := &ProvOp{Vnodes: []string{"a"}}
	cp := op.Copy()
	cp.Vnodes[0] = "b"
	if op.Vnodes[0] != "a" {
		t.Error("ProvOp.Copy shares vnodes")
	}
}

// wrap wraps err the way callers do (fmt.Errorf %w); nil gives a
// plain error.
func wrap(err error) error {
	if err == nil {
		return fmt.Errorf("plain")
	}
	return fmt.Errorf("context: %w", err)
}
