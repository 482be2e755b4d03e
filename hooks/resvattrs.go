package hooks

import (
	"strings"

	"github.com/strata-hpc/strata/model"
)

// ResvAttrs is a reservation under the attribute names of pbs_rstat -f
// and PBS's hook resv object, for resvsub and modifyresv events. Times
// are Unix seconds; ACLs are comma-joined as PBS prints them.
func ResvAttrs(r *model.Reservation) map[string]any {
	a := map[string]any{}
	str := func(k, v string) {
		if v != "" {
			a[k] = v
		}
	}
	str("resvid", r.ID)
	str("id", r.ID)
	str("Reserve_Name", r.Name)
	str("Reserve_Owner", r.Owner)
	str("queue", r.Queue)
	str("server", r.Server)
	if r.Start != 0 {
		a["reserve_start"] = r.Start
	}
	if r.End != 0 {
		a["reserve_end"] = r.End
	}
	if r.Duration != 0 {
		a["reserve_duration"] = r.Duration
	}
	if r.State != 0 {
		a["reserve_state"] = model.ResvStateLong(r.State)
	}
	if len(r.ResourceList) > 0 {
		res := map[string]any{}
		for k, v := range r.ResourceList {
			res[k] = v
		}
		a["Resource_List"] = res
	}
	str("Authorized_Users", strings.Join(r.AuthorizedUsers, ","))
	str("Authorized_Groups", strings.Join(r.AuthorizedGroups, ","))
	str("Authorized_Hosts", strings.Join(r.AuthorizedHosts, ","))
	str("Mail_Points", r.MailPoints)
	str("Mail_Users", r.MailUsers)
	str("reserve_rrule", r.RRule)
	return a
}
