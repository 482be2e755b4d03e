package hooks

import (
	"github.com/strata-hpc/strata/model"
)

// ServerView is what the pbs module's pbs.server() reads: a copy taken
// when the event is built, so a hook sees no more than the event carries
// and never talks to the server itself (it gains no rights of the user it
// runs as).
type ServerView struct {
	Name   string               `json:"server_name"`
	Queues map[string]QueueView `json:"queues,omitempty"`
	Vnodes map[string]VnodeView `json:"vnodes,omitempty"`
}

// QueueView is a queue as pbs.server().queue(name) shows it.
type QueueView struct {
	Type             string            `json:"queue_type"`
	Priority         int               `json:"Priority"`
	Enabled          bool              `json:"enabled"`
	Started          bool              `json:"started"`
	ResourcesMax     map[string]string `json:"resources_max,omitempty"`
	ResourcesMin     map[string]string `json:"resources_min,omitempty"`
	ResourcesDefault map[string]string `json:"resources_default,omitempty"`
}

// VnodeView is a vnode as pbs.server().vnode(name) and the event's
// vnode_list show it.
type VnodeView struct {
	State              string            `json:"state"`
	Host               string            `json:"Mom"`
	ResourcesAvailable map[string]string `json:"resources_available,omitempty"`
	ResourcesAssigned  map[string]string `json:"resources_assigned,omitempty"`
	CurrentAOE         string            `json:"current_aoe,omitempty"`
	ProvisionEnable    bool              `json:"provision_enable"`
	Comment            string            `json:"comment,omitempty"`
	Sharing            string            `json:"sharing,omitempty"`
}

// NewServerView copies what hooks may read of the configuration and the
// given vnodes (nil: none; the pbs module asks for vnodes over the query
// channel when a hook reads them, so an event does not carry thousands).
func NewServerView(cfg *model.ServerConfig, vnodes []*model.Vnode) *ServerView {
	sv := &ServerView{Name: cfg.Name, Queues: map[string]QueueView{}}
	for name, q := range cfg.Queues {
		sv.Queues[name] = QueueView{
			Type: q.Type, Priority: q.Priority, Enabled: q.Enabled, Started: q.Started,
			ResourcesMax: q.ResourcesMax, ResourcesMin: q.ResourcesMin, ResourcesDefault: q.ResourcesDefault,
		}
	}
	if len(vnodes) > 0 {
		sv.Vnodes = make(map[string]VnodeView, len(vnodes))
		for _, v := range vnodes {
			sv.Vnodes[v.Name] = NewVnodeView(v, cfg.Defs)
		}
	}
	return sv
}

// NewVnodeView is a vnode as hooks see it.
func NewVnodeView(v *model.Vnode, defs model.ResourceDefs) VnodeView {
	vv := VnodeView{
		State: v.State.String(), Host: v.Host, ResourcesAvailable: v.Available,
		CurrentAOE: v.CurrentAOE, ProvisionEnable: v.ProvisionEnable, Comment: v.Comment, Sharing: v.Sharing,
	}
	if len(v.Assigned) > 0 {
		vv.ResourcesAssigned = make(map[string]string, len(v.Assigned))
		for r, amt := range v.Assigned {
			vv.ResourcesAssigned[r] = defs[r].FormatAmount(amt)
		}
	}
	return vv
}
