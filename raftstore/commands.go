package raftstore

import (
	"encoding/json"
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// MessageType is the first byte of every Raft log entry. The numbering is
// append-only: a value once used keeps its meaning forever, because old logs
// and snapshots are replayed with it.
type MessageType uint8

const (
	SubmitJobType MessageType = iota + 1
	ApplyPlanType
	RegisterHostType
	HostDownType
	JobEventsType
	DeleteJobType
	RequeueJobsType
	PurgeHistoryType
	SetServerConfigType
	HoldJobType
	ReleaseJobType
	AlterJobType
	SignalJobType
	MoveJobType
	RerunJobType
	RunJobNowType
	ReleaseWaitingType
	MarkVnodesType
	ManageType
	OrderJobsType
	// Provisioning (commands_provision.go).
	ProvisionStartType
	ProvisionResultType
	// Reservations (commands_resv.go).
	SubmitResvType
	ResvEventType
	DeleteResvType
	// Command level 2 (levels.go): the servers of the cluster (servers.go).
	ServerInfoType
	// Command level 3: fairshare usage (apply_fairshare.go).
	FairshareType
	// Command level 3: pbs_ralter (commands_resv.go).
	AlterResvType
	// Command level 6: many qhold/qrls ids in one entry (commands_batch.go).
	HoldJobsType
	ReleaseJobsType
	DeleteJobsType
)

func (t MessageType) String() string {
	switch t {
	case SubmitJobType:
		return "SubmitJob"
	case ApplyPlanType:
		return "ApplyPlan"
	case RegisterHostType:
		return "RegisterHost"
	case HostDownType:
		return "HostDown"
	case JobEventsType:
		return "JobEvents"
	case DeleteJobType:
		return "DeleteJob"
	case RequeueJobsType:
		return "RequeueJobs"
	case PurgeHistoryType:
		return "PurgeHistory"
	case SetServerConfigType:
		return "SetServerConfig"
	case HoldJobType:
		return "HoldJob"
	case ReleaseJobType:
		return "ReleaseJob"
	case AlterJobType:
		return "AlterJob"
	case SignalJobType:
		return "SignalJob"
	case MoveJobType:
		return "MoveJob"
	case RerunJobType:
		return "RerunJob"
	case RunJobNowType:
		return "RunJobNow"
	case ReleaseWaitingType:
		return "ReleaseWaiting"
	case MarkVnodesType:
		return "MarkVnodes"
	case ManageType:
		return "Manage"
	case OrderJobsType:
		return "OrderJobs"
	case ProvisionStartType:
		return "ProvisionStart"
	case ProvisionResultType:
		return "ProvisionResult"
	case SubmitResvType:
		return "SubmitResv"
	case ResvEventType:
		return "ResvEvent"
	case DeleteResvType:
		return "DeleteResv"
	case ServerInfoType:
		return "ServerInfo"
	case FairshareType:
		return "Fairshare"
	case AlterResvType:
		return "AlterResv"
	case HoldJobsType:
		return "HoldJobs"
	case ReleaseJobsType:
		return "ReleaseJobs"
	case DeleteJobsType:
		return "DeleteJobs"
	}
	return fmt.Sprintf("MessageType(%d)", uint8(t))
}

// Command is implemented by every typed FSM command.
type Command interface {
	Type() MessageType
}

// SubmitJob queues a new job. The FSM assigns its sequence number and id; a
// job whose Token was seen before returns the earlier job's id instead.
type SubmitJob struct {
	Job *model.Job `json:"job"`
	Now int64      `json:"now"`
}

// ApplyPlan commits one scheduling pass: all its run decisions and comments
// in one entry. Decisions that no longer fit the state (a job deleted or a
// vnode gone down since the snapshot) are skipped, never half-applied.
type ApplyPlan struct {
	Now      int64               `json:"now"`
	Epoch    uint64              `json:"epoch"`
	Runs     []model.RunDecision `json:"runs,omitempty"`
	Comments []model.JobComment  `json:"comments,omitempty"`
	// Estimates set or clear top jobs' estimated.start_time,
	// estimated.exec_vnode and topjob (queued jobs only).
	Estimates []model.JobEstimate `json:"estimates,omitempty"`
	// Resvs confirm or deny unconfirmed reservations (apply_resv.go).
	Resvs []model.ResvDecision `json:"resvs,omitempty"`
	// Preempts and Resumes are the cycle's preemption decisions
	// (apply_preempt.go), applied before the runs.
	Preempts []model.Preemption `json:"preempts,omitempty"`
	Resumes  []string           `json:"resumes,omitempty"`
	// SoftWalltimes set running jobs' estimated.soft_walltime.
	SoftWalltimes []model.SoftWalltime `json:"soft_walltimes,omitempty"`
}

// RegisterHost records an agent's host and vnodes. Jobs lists the jobs the
// agent still supervises; running jobs of this mother superior that the agent
// does not know are lost and are requeued or failed.
type RegisterHost struct {
	Host    string         `json:"host"`
	BootID  string         `json:"boot_id"`
	Version string         `json:"version"`
	Pcpus   int            `json:"pcpus"`
	Vnodes  []*model.Vnode `json:"vnodes"`
	Jobs    []string       `json:"jobs"`
	Now     int64          `json:"now"`
	// ImageAOE is the AOE the agent detected on its host (its aoe_file);
	// nil when it cannot tell. Provisioning uses it to confirm an OS
	// provisioning and otherwise it sets current_aoe.
	ImageAOE *string `json:"image_aoe,omitempty"`
}

// HostDown marks every vnode of a host down (missed heartbeats).
type HostDown struct {
	Host    string `json:"host"`
	Comment string `json:"comment"`
	Now     int64  `json:"now"`
}

// JobEvents applies a batch of agent reports from one host.
type JobEvents struct {
	Host   string           `json:"host"`
	Events []model.JobEvent `json:"events"`
	Now    int64            `json:"now"`
}

// DeleteJob deletes a job (qdel). Permission is checked by the server before
// the command is proposed.
type DeleteJob struct {
	JobID     string `json:"job_id"`
	Requestor string `json:"requestor"`
	Force     bool   `json:"force,omitempty"`
	Purge     bool   `json:"purge,omitempty"`
	Now       int64  `json:"now"`
}

// RequeueJobs puts running jobs back in the queue (rerunnable) or ends them
// (not rerunnable), e.g. when their mother superior stayed down too long.
type RequeueJobs struct {
	JobIDs  []string `json:"job_ids"`
	Comment string   `json:"comment"`
	Now     int64    `json:"now"`
}

// PurgeHistory removes finished jobs whose history has expired.
type PurgeHistory struct {
	Before int64 `json:"before"`
	Now    int64 `json:"now"`
}

// SetServerConfig replaces the replicated server configuration.
type SetServerConfig struct {
	Config model.ServerConfig `json:"config"`
	Now    int64              `json:"now"`
}

func (SubmitJob) Type() MessageType       { return SubmitJobType }
func (ApplyPlan) Type() MessageType       { return ApplyPlanType }
func (RegisterHost) Type() MessageType    { return RegisterHostType }
func (HostDown) Type() MessageType        { return HostDownType }
func (JobEvents) Type() MessageType       { return JobEventsType }
func (DeleteJob) Type() MessageType       { return DeleteJobType }
func (RequeueJobs) Type() MessageType     { return RequeueJobsType }
func (PurgeHistory) Type() MessageType    { return PurgeHistoryType }
func (SetServerConfig) Type() MessageType { return SetServerConfigType }

// Encode serializes a command as its type byte followed by JSON.
func Encode(c Command) ([]byte, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", c.Type(), err)
	}
	return append([]byte{byte(c.Type())}, body...), nil
}

// decode parses a log entry back into its command, for a binary of this
// command level.
func decode(data []byte) (Command, error) { return decodeAt(data, CommandLevel()) }

// decodeAt parses a log entry as a server applying up to level would: a
// type introduced by a later level is unknown to it.
func decodeAt(data []byte, level int) (Command, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("empty log entry")
	}
	if t := MessageType(data[0]); t.Level() > level {
		// Introduced after this release: refused like an unknown type.
		return nil, fmt.Errorf("unknown message type %d (%s needs command level %d, this server applies up to %d)", data[0], t, t.Level(), level)
	}
	var c Command
	switch MessageType(data[0]) {
	case SubmitJobType:
		c = &SubmitJob{}
	case ApplyPlanType:
		c = &ApplyPlan{}
	case RegisterHostType:
		c = &RegisterHost{}
	case HostDownType:
		c = &HostDown{}
	case JobEventsType:
		c = &JobEvents{}
	case DeleteJobType:
		c = &DeleteJob{}
	case RequeueJobsType:
		c = &RequeueJobs{}
	case PurgeHistoryType:
		c = &PurgeHistory{}
	case SetServerConfigType:
		c = &SetServerConfig{}
	case HoldJobType:
		c = &HoldJob{}
	case ReleaseJobType:
		c = &ReleaseJob{}
	case AlterJobType:
		c = &AlterJob{}
	case SignalJobType:
		c = &SignalJob{}
	case MoveJobType:
		c = &MoveJob{}
	case RerunJobType:
		c = &RerunJob{}
	case RunJobNowType:
		c = &RunJobNow{}
	case ReleaseWaitingType:
		c = &ReleaseWaiting{}
	case MarkVnodesType:
		c = &MarkVnodes{}
	case ManageType:
		c = &Manage{}
	case OrderJobsType:
		c = &OrderJobs{}
	case ProvisionStartType:
		c = &ProvisionStart{}
	case ProvisionResultType:
		c = &ProvisionResult{}
	case SubmitResvType:
		c = &SubmitResv{}
	case ResvEventType:
		c = &ResvEvent{}
	case DeleteResvType:
		c = &DeleteResv{}
	case ServerInfoType:
		c = &ServerInfo{}
	case FairshareType:
		c = &Fairshare{}
	case AlterResvType:
		c = &AlterResv{}
	case HoldJobsType:
		c = &HoldJobs{}
	case ReleaseJobsType:
		c = &ReleaseJobs{}
	case DeleteJobsType:
		c = &DeleteJobs{}
	default:
		return nil, fmt.Errorf("unknown message type %d", data[0])
	}
	if err := json.Unmarshal(data[1:], c); err != nil {
		return nil, fmt.Errorf("decode %s: %w", MessageType(data[0]), err)
	}
	return c, nil
}
