package raftstore

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// submitMaintResv stores a maintenance reservation (pbs_rsub --hosts,
// checked by the server: managers only, vnodes resolved). It is confirmed
// at once, whatever runs on the hosts, has no queue, and its id is
// M<seq> from the job counter. Its vnodes show "maintenance" while it
// runs (syncResvFlags), and other reservations on them over the same
// period become degraded (IC) and are moved by the scheduler.
func (w *writer) submitMaintResv(c *SubmitResv) any {
	if c.Resv.Token != "" {
		if raw, _ := w.txn.First(tableResvs, "token", c.Resv.Token); raw != nil {
			return raw.(*model.Reservation).ID
		}
	}
	m := w.meta()
	r := c.Resv.Copy()
	r.Seq = m.NextSeq
	r.ID = model.FormatResvID(model.ResvPrefixMaint, r.Seq, m.Config.Name)
	r.Queue = ""
	r.Server = m.Config.Name
	r.State, r.Substate = model.ResvConfirmed, model.ResvConfirmed
	r.Ctime, r.Mtime = c.Now, c.Now
	r.Gone, r.Denied, r.Provisioned, r.Occurrences, r.AOE = 0, false, false, nil, ""
	r.Comment = fmt.Sprintf("Maintenance reservation confirmed at %s", pbsTime(c.Now))
	m.NextSeq++
	if max := m.Config.MaxJobSequenceID; max > 0 && m.NextSeq > max {
		m.NextSeq = 0
	}
	w.putMeta(m)
	w.putResv(r)
	return r.ID
}
