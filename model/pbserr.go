package model

import (
	"errors"
	"fmt"
)

// PBS error numbers (PBSE_*) that Strata reports. Commands exit with the
// number modulo 256, exactly as OpenPBS clients do, so scripts that test for
// 153 ("Unknown Job Id") keep working.
const (
	PBSEUnknownJobID     = 15001
	PBSENoAttr           = 15002
	PBSEAttrRO           = 15003
	PBSEInvalidRequest   = 15004
	PBSEPerm             = 15007
	PBSEUnknownSignal    = 15013
	PBSEBadAttrVal       = 15014
	PBSEModAtrRun        = 15015
	PBSEBadState         = 15016
	PBSEUnknownQueue     = 15018
	PBSEQueueNotEnabled  = 15021
	PBSEQueueAccess      = 15022
	PBSESystem           = 15010
	PBSENoSupport        = 15029
	PBSEUnknownResource  = 15035
	PBSEExceedsLimits    = 15036
	PBSENoDefaultQueue   = 15037
	PBSENoRerun          = 15038
	PBSEResourceUnavail  = 15044
	PBSEBadGroup         = 15045
	PBSEBadDepend        = 15054
	PBSEUnknownNode      = 15062
	PBSEUnknownResvID    = 15084
	PBSEArrayTooLarge    = 15107
	PBSEInvalNodePlace   = 15110
	PBSEPlaceNoSelect    = 15111
	PBSEHistJobID        = 15139
	PBSEJobHistNotSet    = 15140
	PBSEMaxQueued        = 15142
	PBSEMaxQueuedWouldBe = 15143
	PBSENotLeader        = 15200 // Strata: this server is not the Raft leader
	// PBSEStaleDefaults (Strata) refuses a submission built with other
	// default_qsub_arguments than the server's; the message is the
	// server's value, and qsub rebuilds the request with it.
	PBSEStaleDefaults = 15201
)

// pbsMessages holds the server texts of pbs_messages.c. Several end with a
// space on purpose: the server appends an attribute name and the client a job
// id, which is where OpenPBS's familiar double spaces come from.
var pbsMessages = map[int]string{
	PBSEUnknownJobID:     "Unknown Job Id",
	PBSENoAttr:           "Undefined attribute ",
	PBSEAttrRO:           "Cannot set attribute, read only or insufficient permission ",
	PBSEInvalidRequest:   "Invalid request",
	PBSEPerm:             "Unauthorized Request ",
	PBSESystem:           "System error: ",
	PBSEUnknownSignal:    "Unknown signal",
	PBSENoSupport:        "No support for requested service",
	PBSENoRerun:          "Job is not rerunnable",
	PBSEResourceUnavail:  "Resources temporarily unavailable",
	PBSEBadGroup:         "Bad Group specified",
	PBSEBadAttrVal:       "Illegal attribute or resource value",
	PBSEModAtrRun:        "Cannot modify attribute while job running ",
	PBSEBadState:         "Request invalid for state of job",
	PBSEUnknownQueue:     "Unknown queue",
	PBSEQueueNotEnabled:  "Queue is not enabled",
	PBSEQueueAccess:      "Access to queue is denied",
	PBSEUnknownResource:  "Unknown resource",
	PBSEExceedsLimits:    "Job violates queue and/or server resource limits",
	PBSENoDefaultQueue:   "No default queue specified",
	PBSEBadDepend:        "Invalid Job Dependency",
	PBSEUnknownNode:      "Unknown node ",
	PBSEUnknownResvID:    "Unknown Reservation Id",
	PBSEArrayTooLarge:    "Array job exceeds server or queue size limit",
	PBSEInvalNodePlace:   `"-lresource=" cannot be used with "select" or "place", resource is: `,
	PBSEPlaceNoSelect:    `Cannot have "place" without "select"`,
	PBSEHistJobID:        "Job has finished",
	PBSEJobHistNotSet:    "PBS is not configured to maintain job history",
	PBSEMaxQueued:        "Maximum number of jobs already in queue",
	PBSEMaxQueuedWouldBe: "would exceed",
	PBSENotLeader:        "Server is not the leader",
	PBSEStaleDefaults:    "default_qsub_arguments changed",
}

// PBSError is an error with a PBS error number. Msg is the full text the
// server sends (the standard text, possibly followed by detail such as an
// attribute name); commands print it after "<cmd>: " and may append a job id.
type PBSError struct {
	Code int    `json:"code"`
	Msg  string `json:"message"`
}

func (e *PBSError) Error() string { return e.Msg }

// ExitCode is what a command exits with for this error: the PBS number mod
// 256, never 0 for a real failure.
func (e *PBSError) ExitCode() int {
	c := e.Code % 256
	if c == 0 {
		c = 1
	}
	return c
}

// Errorf builds a PBSError whose text is the standard message for code
// followed by the formatted detail (if any).
func Errorf(code int, detail string, args ...any) *PBSError {
	msg := pbsMessages[code]
	if detail != "" {
		msg += fmt.Sprintf(detail, args...)
	}
	if msg == "" {
		msg = fmt.Sprintf("Server returned error %d", code)
	}
	return &PBSError{Code: code, Msg: msg}
}

// Err builds a PBSError with the standard text alone.
func Err(code int) *PBSError { return Errorf(code, "") }

// Message returns the standard server text for a PBS error number.
func Message(code int) string { return pbsMessages[code] }

// AsPBSError extracts a PBSError from err's chain.
func AsPBSError(err error) (*PBSError, bool) {
	var pe *PBSError
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}
