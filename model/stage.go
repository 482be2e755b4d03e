package model

import (
	"fmt"
	"strings"
)

// File staging (qsub -W stagein=..., -W stageout=...), PBS syntax:
//
//	execution_path@storage_host:storage_path[,execution_path@storage_host:storage_path...]
//
// execution_path is on the execution host, absolute or relative to the
// job's directory there (the owner's home); storage_path is on
// storage_host, absolute or relative to the owner's home there. Stage-in
// copies storage to execution before the job starts; stage-out copies
// execution to storage after it ends, and the execution_path of a
// stage-out may end in a wildcard (* and ?) naming several files.

// SubStageFail is the substate of a job whose stage-in failed: it waits
// (W) for StageFailWait seconds and is then eligible again (PBS's
// JOB_SUBSTATE_STAGEFAIL and PBS_STAGEFAIL_WAIT).
const (
	SubStageFail  = 37
	StageFailWait = 1800
)

// JobEventStageinFailed reports that a job's stage-in failed before it
// started; the job goes back to wait (W, substate 37) rather than ending.
const JobEventStageinFailed = "stagein_failed"

// StageSpec is one entry of a stagein or stageout list.
type StageSpec struct {
	Local  string // execution_path
	Host   string // storage_host
	Remote string // storage_path
}

func (s StageSpec) String() string { return s.Local + "@" + s.Host + ":" + s.Remote }

// maxStageEntries bounds a staging list: each entry is a network copy
// the agent makes for the job.
const maxStageEntries = 256

// ParseStageList parses a stagein/stageout value. The first '@' ends the
// execution path and the first ':' after it ends the host name, as PBS
// parses it; the host must be a plain host name, so neither a user name
// ("user@host") nor an option ("-oProxyCommand=...") can be smuggled in.
func ParseStageList(v string) ([]StageSpec, error) {
	if strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("empty staging list")
	}
	parts := strings.Split(v, ",")
	if len(parts) > maxStageEntries {
		return nil, fmt.Errorf("more than %d staging entries", maxStageEntries)
	}
	var out []StageSpec
	for _, p := range parts {
		p = strings.TrimSpace(p)
		local, rest, ok := strings.Cut(p, "@")
		if !ok || local == "" {
			return nil, fmt.Errorf("%q: want execution_path@host:storage_path", p)
		}
		host, remote, ok := strings.Cut(rest, ":")
		if !ok || remote == "" {
			return nil, fmt.Errorf("%q: want execution_path@host:storage_path", p)
		}
		if !ValidHostName(host) {
			return nil, fmt.Errorf("%q: %q is not a host name", p, host)
		}
		for _, s := range []string{local, remote} {
			if strings.ContainsAny(s, "\x00\n") {
				return nil, fmt.Errorf("%q: control character in a path", p)
			}
		}
		out = append(out, StageSpec{Local: local, Host: host, Remote: remote})
	}
	return out, nil
}

// FormatStageList is the attribute value of a parsed list.
func FormatStageList(specs []StageSpec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// ValidHostName reports whether h is a DNS-style host name (or IPv4
// address): letters, digits, '-', '_' and '.', starting and ending with a
// letter or digit, at most 253 characters. Anything else (an option
// starting with '-', a user@ prefix, spaces, brackets) is refused wherever
// a host name from a user reaches a network client.
func ValidHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum {
			continue
		}
		if (c == '-' || c == '_' || c == '.') && i > 0 && i < len(h)-1 {
			continue
		}
		return false
	}
	return true
}

// SplitHostPath splits an Output_Path/Error_Path value "host:path"; a
// value without a host part (no ':' before the first '/') has host "".
func SplitHostPath(v string) (host, path string) {
	if h, p, ok := strings.Cut(v, ":"); ok && !strings.Contains(h, "/") {
		return h, p
	}
	return "", v
}
