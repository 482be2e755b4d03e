package mom

import (
	"log"
	"os"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/mom/shepherd"
)

// The shepherd's code (the run records, cgroups, signal delivery, the job
// runner) lives in package mom/shepherd so that the strata-shepherd
// executable links nothing of the agent (no TLS client, Prometheus, TOML,
// SSH). The agent shares the record formats and the cgroup code with it;
// these are the names the agent's files use for them.

const (
	cgroupAuto             = shepherd.CgroupAuto
	cgroupOff              = shepherd.CgroupOff
	cgroupV1               = shepherd.CgroupV1
	cgroupV2               = shepherd.CgroupV2
	defaultTransferTimeout = shepherd.DefaultTransferTimeout
	defaultUsageInterval   = shepherd.DefaultUsageInterval
	fileHookFail           = shepherd.FileHookFail
	fileHookLog            = shepherd.FileHookLog
	fileHooks              = shepherd.FileHooks
	fileLaunch             = shepherd.FileLaunch
	fileLog                = shepherd.FileLog
	fileResult             = shepherd.FileResult
	fileShepherd           = shepherd.FileShepherd
	fileSignals            = shepherd.FileSignals
	fileUsage              = shepherd.FileUsage
	fileJob                = shepherd.FileJob
	fileJobPid             = shepherd.FileJobPid
	hookRequestor          = shepherd.HookRequestor
	maxHookLogRelay        = shepherd.MaxHookLogRelay
	maxTransferRequest     = shepherd.MaxTransferRequest
	opDeliver              = shepherd.OpDeliver
	opIn                   = shepherd.OpIn
	opOut                  = shepherd.OpOut
	opRemove               = shepherd.OpRemove
	pokeSignal             = shepherd.PokeSignal
	spoolFormat            = shepherd.SpoolFormat
)

type (
	// Result is how a job ended (result.json).
	Result          = shepherd.Result
	cgroupLayout    = shepherd.CgroupLayout
	cgroupSources   = shepherd.CgroupSources
	hookFailure     = shepherd.HookFailure
	hookSet         = shepherd.HookSet
	jobCgroup       = shepherd.JobCgroup
	launchParams    = shepherd.LaunchParams
	shepherdRecord  = shepherd.ShepherdRecord
	signalRequests  = shepherd.SignalRequests
	sshUser         = shepherd.SSHUser
	transferItem    = shepherd.TransferItem
	transferRequest = shepherd.TransferRequest
	transferResult  = shepherd.TransferResult
	// CgroupConfig is the [cgroups] table of the agent configuration.
	CgroupConfig = shepherd.CgroupConfig
	// TransferConfig is how job files reach other hosts.
	TransferConfig = shepherd.TransferConfig
	// UseCP is one [[usecp]] mapping.
	UseCP = shepherd.UseCP
	// SSHConfig is the [ssh] table.
	SSHConfig = shepherd.SSHConfig
)

var (
	defaultCgroupSources = shepherd.DefaultCgroupSources
	jobHookEvents        = shepherd.JobHookEvents
)

func bootID() string                                   { return shepherd.BootID() }
func failed(exit int, format string, a ...any) *Result { return shepherd.Failed(exit, format, a...) }
func hasFailAction(h *model.Hook, action string) bool  { return shepherd.HasFailAction(h, action) }
func logHookRun(logger *log.Logger, h *model.Hook, event string, out *hooks.Outcome) {
	shepherd.LogHookRun(logger, h, event, out)
}
func maxSigN(sigs []model.Sig) int                          { return shepherd.MaxSigN(sigs) }
func physicalMemory() (int64, error)                        { return shepherd.PhysicalMemory() }
func procStartTime(pid int) (uint64, error)                 { return shepherd.ProcStartTime(pid) }
func readJSON(path string, v any) error                     { return shepherd.ReadJSON(path, v) }
func readJob(dir string) (*model.Job, error)                { return shepherd.ReadJob(dir) }
func readResult(dir string) (*Result, error)                { return shepherd.ReadResult(dir) }
func shepherdAlive(dir string) bool                         { return shepherd.ShepherdAlive(dir) }
func shortHostname() string                                 { return shepherd.ShortHostname() }
func readJobPid(dir string) (*shepherd.JobPidRecord, error) { return shepherd.ReadJobPid(dir) }
func writeJSONAtomic(path string, v any, perm os.FileMode) error {
	return shepherd.WriteJSONAtomic(path, v, perm)
}
func writeJSONRun(path string, v any, perm os.FileMode) error {
	return shepherd.WriteJSONRun(path, v, perm)
}
func setupCgroups(cfg CgroupConfig, host, spoolDir string, src cgroupSources) (*cgroupLayout, error) {
	return shepherd.SetupCgroups(cfg, host, spoolDir, src)
}
