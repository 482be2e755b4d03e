package model

// Job event kinds an agent reports.
const (
	JobEventStarted = "started"
	JobEventEnded   = "ended"
	// JobEventFailed means the job could not be started (bad uid, missing
	// directory...); Exit carries the reason (negative Exit_status).
	JobEventFailed = "failed"
	// JobEventUsage reports resources_used of a running job (Used); the
	// server replaces the job's resources_used with it.
	JobEventUsage = "usage"
)

// JobEvent is one change of a job on an agent: what the agent sends
// (server/api.EventsRequest) and what the FSM applies (raftstore.JobEvents)
// are this one type, and its JSON is the Raft log's encoding.
type JobEvent struct {
	JobID string `json:"job_id"`
	Kind  string `json:"kind"`
	// Run is the job's run_count when the agent started it, so the server
	// drops reports about an earlier run of a requeued job.
	Run       int               `json:"run"`
	SessionID int               `json:"session_id,omitempty"`
	Exit      int               `json:"exit_status"`
	Used      map[string]string `json:"resources_used,omitempty"`
	Comment   string            `json:"comment,omitempty"`
}
