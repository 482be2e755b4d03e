package pbscmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// stateCountText is PBS's state_count attribute.
func stateCountText(c map[string]int) string {
	return fmt.Sprintf("Transit:%d Queued:%d Held:%d Waiting:%d Running:%d Exiting:%d Begun:%d ",
		c[model.StateTransit], c[model.StateQueued], c[model.StateHeld], c[model.StateWaiting],
		c[model.StateRunning], c[model.StateExiting], c[model.StateBegun])
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// queueTypeName is queue_type as qmgr and qstat -Qf print it.
func queueTypeName(t string) string {
	if t == "" || strings.EqualFold(t, "execution") {
		return "Execution"
	}
	return "Route"
}

// writeQueueTable writes qstat -Q.
func writeQueueTable(b *strings.Builder, queues []api.QueueInfo) {
	if len(queues) == 0 {
		return
	}
	b.WriteString("Queue              Max   Tot Ena Str   Que   Run   Hld   Wat   Trn   Ext Type\n")
	b.WriteString("---------------- ----- ----- --- --- ----- ----- ----- ----- ----- ----- ----\n")
	for _, q := range queues {
		c := q.StateCount
		fmt.Fprintf(b, "%-16s %5d %5d %3s %3s %5d %5d %5d %5d %5d %5d %-4s\n",
			truncMark(q.Name, 16), 0, q.TotalJobs, yesNo(q.Enabled), yesNo(q.Started),
			c[model.StateQueued], c[model.StateRunning], c[model.StateHeld], c[model.StateWaiting],
			c[model.StateTransit], c[model.StateExiting], truncMark(queueTypeName(q.Type), 4))
	}
}

// queueAttrs are a queue's attributes for qstat -Qf.
func queueAttrs(q api.QueueInfo) []attr {
	return []attr{
		{Name: "queue_type", Value: queueTypeName(q.Type)},
		{Name: "Priority", Value: strconv.Itoa(q.Priority)},
		{Name: "total_jobs", Value: strconv.Itoa(q.TotalJobs)},
		{Name: "state_count", Value: stateCountText(q.StateCount)},
		{Name: "enabled", Value: model.FormatBool(q.Enabled)},
		{Name: "started", Value: model.FormatBool(q.Started)},
	}
}

// writeQueueLimits writes qstat -q: limits (Strata has none yet, so
// "--"), run and queued counts, state, and the totals.
func writeQueueLimits(b *strings.Builder, server string, queues []api.QueueInfo) {
	fmt.Fprintf(b, "\nserver: %s\n\n", server)
	b.WriteString("Queue            Memory CPU Time Walltime Node   Run   Que   Lm  State\n")
	b.WriteString("---------------- ------ -------- -------- ---- ----- ----- ----  -----\n")
	run, que := 0, 0
	for _, q := range queues {
		r, qd := q.StateCount[model.StateRunning], q.StateCount[model.StateQueued]
		run, que = run+r, que+qd
		state := "D"
		if q.Enabled {
			state = "E"
		}
		if q.Started {
			state += " R"
		} else {
			state += " S"
		}
		fmt.Fprintf(b, "%-16s   --      --       --     --  %5d %5d   --   %s\n", truncMark(q.Name, 16), r, qd, state)
	}
	b.WriteString("                                               ----- -----\n")
	fmt.Fprintf(b, "                                               %5d %5d\n", run, que)
}

// writeServerTable writes qstat -B.
func writeServerTable(b *strings.Builder, info api.ServerInfo) {
	c := info.StateCount
	b.WriteString("Server             Max   Tot   Que   Run   Hld   Wat   Trn   Ext Status\n")
	b.WriteString("---------------- ----- ----- ----- ----- ----- ----- ----- ----- -----------\n")
	fmt.Fprintf(b, "%-16s %5d %5d %5d %5d %5d %5d %5d %5d %-10s\n",
		truncMark(info.Name, 16), 0, info.TotalJobs, c[model.StateQueued], c[model.StateRunning],
		c[model.StateHeld], c[model.StateWaiting], c[model.StateTransit], c[model.StateExiting],
		firstNonEmpty(info.State, "Active"))
	if r := info.Raft; r != nil {
		// A multi-server cluster: say which server leads (docs/ha.md).
		leader := r.Leader
		if leader == "" {
			leader = "(none: election in progress)"
		}
		fmt.Fprintf(b, "\nLeader: %s  (answered by %s, %s; %d voting servers)\n", leader, r.ID, r.State, r.Voters)
	}
}

// serverAttrs are the server's attributes for qstat -Bf.
func serverAttrs(info api.ServerInfo) []attr {
	out := []attr{
		{Name: "server_state", Value: firstNonEmpty(info.State, "Active")},
		{Name: "server_host", Value: info.Name},
	}
	if info.DefaultQ != "" {
		out = append(out, attr{Name: "default_queue", Value: info.DefaultQ})
	}
	if info.Comment != "" {
		out = append(out, attr{Name: "comment", Value: info.Comment})
	}
	out = append(out,
		attr{Name: "total_jobs", Value: strconv.Itoa(info.TotalJobs)},
		attr{Name: "state_count", Value: stateCountText(info.StateCount)},
		attr{Name: "job_history_enable", Value: model.FormatBool(info.History)},
	)
	if info.MaxJobSequenceID != 0 {
		out = append(out, attr{Name: "max_job_sequence_id", Value: strconv.FormatInt(info.MaxJobSequenceID, 10)})
	}
	out = append(out, provisionAttrs(info.Provision)...)
	if r := info.Raft; r != nil {
		out = append(out, attr{Name: "raft_leader", Value: r.Leader}, attr{Name: "raft_server", Value: r.ID},
			attr{Name: "raft_state", Value: r.State}, attr{Name: "raft_voters", Value: strconv.Itoa(r.Voters)},
			attr{Name: "raft_applied_index", Value: strconv.FormatUint(r.Applied, 10)})
	}
	return append(out, attr{Name: "pbs_version", Value: firstNonEmpty(info.Version, api.PBSVersion)})
}
