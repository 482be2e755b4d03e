package shepherd

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Route decides where host:path is, as PBS's mom does: a [[usecp]]
// mapping first (the path is shared and reachable here as local), then
// this host's own names ("localhost", the agent's host, the machine's
// host name, each also matching a longer name up to a '.'); anything else
// is on another host and copied over SSH. It returns the local path and
// true for a local file. A host that is not a plain name is refused.
func (c TransferConfig) Route(host, path string) (string, bool, error) {
	if host == "" {
		return path, true, nil
	}
	if !model.ValidHostName(host) {
		return "", false, fmt.Errorf("%q is not a host name", host)
	}
	for _, u := range c.UseCP {
		if hostMatches(host, u.Host) && strings.HasPrefix(path, u.Remote) {
			return u.Local + path[len(u.Remote):], true, nil
		}
	}
	for _, n := range c.LocalNames {
		if sameHost(host, n) {
			return path, true, nil
		}
	}
	return "", false, nil
}

// hostMatches is PBS's usecp host match: case-insensitive, and a
// pattern starting with '*' matches any name ending in the rest
// ("*.example.org", or "*" for every host).
func hostMatches(host, pattern string) bool {
	if rest, ok := strings.CutPrefix(pattern, "*"); ok {
		return len(host) >= len(rest) && strings.EqualFold(host[len(host)-len(rest):], rest)
	}
	return strings.EqualFold(host, pattern)
}

// sameHost reports whether the name a job gave (h) names this host known
// as local: equal, or one is the other's first labels ("node1" and
// "node1.example.org").
func sameHost(h, local string) bool {
	if local == "" {
		return false
	}
	if strings.EqualFold(h, local) {
		return true
	}
	short, long := h, local
	if len(short) > len(long) {
		short, long = long, short
	}
	return strings.EqualFold(long[:len(short)], short) && long[len(short)] == '.'
}
