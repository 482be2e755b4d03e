package model

import (
	"sort"
	"strconv"
	"strings"
)

// NodeState is a set of vnode state flags; a vnode with none is "free".
type NodeState uint32

const (
	NodeOffline NodeState = 1 << iota
	NodeDown
	NodeJobBusy
	NodeJobExclusive
	NodeResvExclusive
	NodeProvisioning
	NodeWaitProvisioning
	NodeStateUnknown
	NodeStale
	NodeBusy
	NodeMaintenance
	NodeSleep
	NodeInitializing
)

// nodeStateNames is in the order pbsnodes joins them.
var nodeStateNames = []struct {
	flag NodeState
	name string
}{
	{NodeStateUnknown, "state-unknown"},
	{NodeDown, "down"},
	{NodeOffline, "offline"},
	{NodeJobBusy, "job-busy"},
	{NodeJobExclusive, "job-exclusive"},
	{NodeResvExclusive, "resv-exclusive"},
	{NodeBusy, "busy"},
	{NodeProvisioning, "provisioning"},
	{NodeWaitProvisioning, "wait-provisioning"},
	{NodeMaintenance, "maintenance"},
	{NodeSleep, "sleep"},
	{NodeStale, "Stale"},
	{NodeInitializing, "initializing"},
}

// String joins the state names with commas ("down,offline"), or "free".
func (s NodeState) String() string {
	if s == 0 {
		return "free"
	}
	if s&(NodeProvisioning|NodeWaitProvisioning) != 0 {
		// PBS's display rule: a provisioning vnode shows as provisioning,
		// not e.g. down,provisioning (provisioning.go).
		s &^= provisioningHides
	}
	var names []string
	for _, n := range nodeStateNames {
		if s&n.flag != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// ParseNodeState parses one state name.
func ParseNodeState(name string) (NodeState, bool) {
	if name == "free" {
		return 0, true
	}
	for _, n := range nodeStateNames {
		if n.name == name {
			return n.flag, true
		}
	}
	return 0, false
}

// Unavailable is the set of flags that keep new jobs off a vnode whatever
// its free resources (job-busy is judged by resources instead).
const Unavailable = NodeOffline | NodeDown | NodeJobExclusive | NodeResvExclusive |
	NodeProvisioning | NodeWaitProvisioning | NodeStateUnknown | NodeStale | NodeBusy |
	NodeMaintenance | NodeSleep | NodeInitializing

// Vnode is a schedulable node object. Available holds resources_available in
// canonical string form; Capacity is its numeric part, derived when the vnode
// is registered, and Assigned counts what running jobs hold.
type Vnode struct {
	Name  string    `json:"name"`
	Host  string    `json:"host"`
	Mom   string    `json:"mom"`
	Port  int       `json:"port,omitempty"`
	State NodeState `json:"state"`

	Available map[string]string  `json:"resources_available"`
	Capacity  map[string]float64 `json:"capacity"`
	Assigned  map[string]float64 `json:"resources_assigned,omitempty"`
	// Jobs maps each job on the vnode to the ncpus it holds there.
	Jobs map[string]int `json:"jobs,omitempty"`

	Priority        int    `json:"priority,omitempty"` // sort_priority
	Comment         string `json:"comment,omitempty"`
	Sharing         string `json:"sharing,omitempty"`
	ProvisionEnable bool   `json:"provision_enable,omitempty"`
	CurrentAOE      string `json:"current_aoe,omitempty"`
	Pcpus           int    `json:"pcpus,omitempty"`
	Version         string `json:"pbs_version,omitempty"`
	BootID          string `json:"boot_id,omitempty"`
	// ExclusiveJob is the job holding the vnode exclusively, if any.
	ExclusiveJob string `json:"exclusive_job,omitempty"`

	LastStateChange int64 `json:"last_state_change_time,omitempty"`
	LastUsed        int64 `json:"last_used_time,omitempty"`

	// Admin holds the attributes a manager set with qmgr
	// ("resources_available.X", "sort_priority", "provision_enable",
	// "current_aoe", "comment"). They win over what the agent reports and
	// survive its re-registration.
	Admin map[string]string `json:"admin,omitempty"`
}

// Copy returns a copy whose maps may be changed without touching v.
func (v *Vnode) Copy() *Vnode {
	c := *v
	c.Available = copyStringMap(v.Available)
	c.Capacity = copyFloatMap(v.Capacity)
	c.Assigned = copyFloatMap(v.Assigned)
	c.Admin = copyStringMap(v.Admin)
	if v.Jobs != nil {
		c.Jobs = make(map[string]int, len(v.Jobs))
		for k, n := range v.Jobs {
			c.Jobs[k] = n
		}
	}
	return &c
}

// Free returns the unassigned amount of a consumable.
func (v *Vnode) Free(name string) float64 { return v.Capacity[name] - v.Assigned[name] }

// DeriveCapacity fills Capacity from Available using defs.
func (v *Vnode) DeriveCapacity(defs ResourceDefs) {
	v.Capacity = map[string]float64{}
	for name, val := range v.Available {
		if d, ok := defs[name]; ok && d.Consumable() {
			if amt, err := d.Amount(val); err == nil {
				v.Capacity[name] = amt
			}
		}
	}
}

// RecomputeBusy sets or clears job-busy from the assigned cpus.
func (v *Vnode) RecomputeBusy() {
	v.State &^= NodeJobBusy | NodeJobExclusive
	if v.ExclusiveJob != "" {
		v.State |= NodeJobExclusive
		return
	}
	if c := v.Capacity["ncpus"]; c > 0 && v.Assigned["ncpus"] >= c {
		v.State |= NodeJobBusy
	}
}

// AOEs returns resources_available.aoe as a list.
func (v *Vnode) AOEs() []string {
	s := v.Available["aoe"]
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// JobSlots formats the jobs attribute: "102.svr/0, 102.svr/1, ..." with one
// entry per cpu slot, ordered by job id.
func (v *Vnode) JobSlots() []string {
	ids := make([]string, 0, len(v.Jobs))
	for id := range v.Jobs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return lessJobID(ids[a], ids[b]) })
	var out []string
	slot := 0
	for _, id := range ids {
		n := v.Jobs[id]
		if n < 1 {
			n = 1
		}
		// The count comes from an agent-reported ncpus; one slot per cpu
		// is only a display, so it is bounded.
		n = min(n, MaxSelectChunks)
		for i := 0; i < n; i++ {
			out = append(out, id+"/"+strconv.Itoa(slot))
			slot++
		}
	}
	return out
}

// lessJobID orders ids by their numeric sequence, then textually.
func lessJobID(a, b string) bool {
	sa, _ := strconv.ParseInt(SeqOf(a), 10, 64)
	sb, _ := strconv.ParseInt(SeqOf(b), 10, 64)
	if sa != sb {
		return sa < sb
	}
	// An array parent (123[]) before its subjobs, subjobs by index.
	_, ia, okA := SplitArrayID(a)
	_, ib, okB := SplitArrayID(b)
	if okA && okB && ia != ib {
		na, errA := strconv.ParseInt(ia, 10, 64)
		nb, errB := strconv.ParseInt(ib, 10, 64)
		switch {
		case ia == "":
			return true
		case ib == "":
			return false
		case errA == nil && errB == nil:
			return na < nb
		}
	}
	return a < b
}

// LessJobID orders job ids by sequence number (submission order).
func LessJobID(a, b string) bool { return lessJobID(a, b) }

// ApplyAdmin lays the manager-set attributes over the agent-reported ones.
// Values were validated when they were set.
func (v *Vnode) ApplyAdmin() {
	for k, val := range v.Admin {
		switch {
		case strings.HasPrefix(k, "resources_available."):
			if v.Available == nil {
				v.Available = map[string]string{}
			}
			v.Available[strings.TrimPrefix(k, "resources_available.")] = val
		case k == "sort_priority":
			v.Priority, _ = strconv.Atoi(val)
		case k == "provision_enable":
			v.ProvisionEnable, _ = ParseBool(val)
		case k == "current_aoe":
			v.CurrentAOE = val
		case k == "comment":
			v.Comment = val
		}
	}
}
