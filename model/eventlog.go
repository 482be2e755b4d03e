package model

// Event classes of the server's event log, PBS's PBSEVENT_* bits: the
// log_events server attribute is a mask of them (default 511, all but the
// two noisiest debug levels).
const (
	LogError     = 0x0001 // internal errors
	LogSystem    = 0x0002 // system events: nodes going down and up
	LogAdmin     = 0x0004 // administrator actions: qmgr changes
	LogJob       = 0x0008 // job events: queued, run, deleted, held...
	LogJobUsage  = 0x0010 // a job's end with its resources used
	LogSecurity  = 0x0020 // security violations
	LogSched     = 0x0040 // scheduler events
	LogDebug     = 0x0080 // debugging
	LogDebug2    = 0x0100 // more debugging
	LogResv      = 0x0200 // reservation events
	LogDebug3    = 0x0400
	LogDebug4    = 0x0800
	LogEventsAll = 0x0fff

	// DefaultLogEvents is log_events when unset, as in PBS.
	DefaultLogEvents = 511
)

// LogEvent is one line of the server's event log. The state machine makes
// it while applying an entry, so every server writes the same lines for
// the same entries; Index is the entry's, which lets a server skip lines
// it already wrote when it replays its log after a restart.
type LogEvent struct {
	Index uint64 `json:"index"`
	Time  int64  `json:"time"`
	Type  int    `json:"type"`  // one of the Log* bits
	Class string `json:"class"` // "Job", "Node", "Resv", "Svr", "Que", "Hook"
	ID    string `json:"id"`    // the job, vnode, reservation... it is about
	Msg   string `json:"msg"`
}
