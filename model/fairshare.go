package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FairshareConfig is the fairshare part of the sched object: what OpenPBS
// keeps in sched_config (fair_share, fairshare_entity, ...) and in the
// sched_priv/resource_group file. In Strata all of it is replicated
// configuration set with qmgr, so every server orders jobs by the same tree
// and a new leader needs no file on its own disk.
type FairshareConfig struct {
	// Enabled is fair_share: order jobs by the share tree.
	Enabled bool `json:"fair_share,omitempty"`
	// Entity is fairshare_entity: euser (default), egroup, Account_Name
	// or queue.
	Entity string `json:"entity,omitempty"`
	// UsageRes is fairshare_usage_res: cput (default), walltime, or a
	// numeric consumable R meaning Resource_List.R x walltime used
	// ("ncpus" is cpu-seconds allocated; "ncpus*walltime" is accepted).
	UsageRes string `json:"usage_res,omitempty"`
	// DecayTime (seconds, default 86400) and DecayFactor (default 0.5):
	// every DecayTime all usage is multiplied by DecayFactor.
	DecayTime   int64   `json:"decay_time,omitempty"`
	DecayFactor float64 `json:"decay_factor,omitempty"`
	// UnknownShares are the shares of the "unknown" group, where entities
	// the tree does not name go; nil means DefaultUnknownShares.
	UnknownShares *int64 `json:"unknown_shares,omitempty"`
	// EnforceNoShares (fairshare_enforce_no_shares, default true): jobs of
	// an entity with zero shares never run. nil means true.
	EnforceNoShares *bool `json:"enforce_no_shares,omitempty"`
	// Tree is the share tree, one resource_group line per entry
	// ("name id parent shares"), parents before children.
	Tree []string `json:"resource_group,omitempty"`
}

// Fairshare defaults (OpenPBS's sched_config values, except unknown_shares:
// see DefaultUnknownShares).
const (
	FairshareEuser       = "euser"
	FairshareEgroup      = "egroup"
	FairshareAccount     = "Account_Name"
	FairshareQueue       = "queue"
	DefaultDecayTime     = 86400
	DefaultDecayFactor   = 0.5
	FairshareRoot        = "root"
	FairshareUnknown     = "unknown"
	DefaultFairshareRes  = "cput"
	fairshareMaxTreeSize = 100000
	// DefaultUnknownShares differs from OpenPBS (0 there, which with
	// fairshare_enforce_no_shares means a user missing from the tree
	// silently never runs): 10, as OpenPBS's shipped sched_config suggests.
	DefaultUnknownShares = 10
)

// EntityKind is fairshare_entity with its default.
func (c *FairshareConfig) EntityKind() string {
	if c == nil || c.Entity == "" {
		return FairshareEuser
	}
	return c.Entity
}

// Resource is fairshare_usage_res with its default, without a "*walltime".
func (c *FairshareConfig) Resource() string {
	if c == nil || c.UsageRes == "" {
		return DefaultFairshareRes
	}
	return strings.TrimSuffix(c.UsageRes, "*walltime")
}

// Decay returns fairshare_decay_time and fairshare_decay_factor with their
// defaults.
func (c *FairshareConfig) Decay() (int64, float64) {
	t, f := int64(DefaultDecayTime), DefaultDecayFactor
	if c != nil && c.DecayTime > 0 {
		t = c.DecayTime
	}
	if c != nil && c.DecayFactor > 0 {
		f = c.DecayFactor
	}
	return t, f
}

// Unknown returns unknown_shares with its default.
func (c *FairshareConfig) Unknown() int64 {
	if c == nil || c.UnknownShares == nil {
		return DefaultUnknownShares
	}
	return *c.UnknownShares
}

// Enforce returns fairshare_enforce_no_shares with its default.
func (c *FairshareConfig) Enforce() bool {
	return c == nil || c.EnforceNoShares == nil || *c.EnforceNoShares
}

// Copy returns a copy whose slices and pointers may be changed.
func (c *FairshareConfig) Copy() *FairshareConfig {
	if c == nil {
		return nil
	}
	out := *c
	out.Tree = append([]string(nil), c.Tree...)
	if c.UnknownShares != nil {
		n := *c.UnknownShares
		out.UnknownShares = &n
	}
	if c.EnforceNoShares != nil {
		b := *c.EnforceNoShares
		out.EnforceNoShares = &b
	}
	return &out
}

// ValidFairshareEntity reports whether s is a fairshare_entity value.
func ValidFairshareEntity(s string) bool {
	switch s {
	case FairshareEuser, FairshareEgroup, FairshareAccount, FairshareQueue:
		return true
	}
	return false
}

// FairshareEntityOf is the name j is charged to under fairshare_entity kind.
func FairshareEntityOf(j *Job, kind string) string {
	switch kind {
	case FairshareEgroup:
		return j.Group
	case FairshareAccount:
		return j.Account
	case FairshareQueue:
		return j.Queue
	}
	return j.User
}

// ShareNode is one resource_group line: an entity or group, its unique id,
// its parent (root at the top) and its shares among its siblings.
type ShareNode struct {
	Name   string
	ID     int64
	Parent string
	Shares int64
}

// String is the node's resource_group line.
func (n ShareNode) String() string {
	return fmt.Sprintf("%s %d %s %d", n.Name, n.ID, n.Parent, n.Shares)
}

// ParseShareLine reads one resource_group line: "name id parent shares".
func ParseShareLine(line string) (ShareNode, error) {
	f := strings.Fields(line)
	if len(f) != 4 {
		return ShareNode{}, fmt.Errorf("resource_group %q: want \"name id parent shares\"", line)
	}
	id, err1 := strconv.ParseInt(f[1], 10, 64)
	shares, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || id < 0 || shares < 0 || shares > math.MaxInt32 {
		return ShareNode{}, fmt.Errorf("resource_group %q: id and shares are non-negative integers", line)
	}
	if !validShareName(f[0]) || !validShareName(f[2]) {
		return ShareNode{}, fmt.Errorf("resource_group %q: bad name", line)
	}
	if f[0] == FairshareRoot {
		return ShareNode{}, fmt.Errorf("resource_group %q: root is the tree's top and cannot be defined", line)
	}
	return ShareNode{Name: f[0], ID: id, Parent: f[2], Shares: shares}, nil
}

func validShareName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == ',' || r == '"' || r == '\'' || r == 0x7f {
			return false
		}
	}
	return true
}

// ParseShareTree reads a whole tree: names and ids unique, every parent
// root or defined on an earlier line (so the tree has no cycles).
func ParseShareTree(lines []string) ([]ShareNode, error) {
	if len(lines) > fairshareMaxTreeSize {
		return nil, fmt.Errorf("resource_group: more than %d entries", fairshareMaxTreeSize)
	}
	seen := map[string]bool{FairshareRoot: true}
	ids := map[int64]string{}
	out := make([]ShareNode, 0, len(lines))
	for _, l := range lines {
		n, err := ParseShareLine(l)
		if err != nil {
			return nil, err
		}
		if seen[n.Name] {
			return nil, fmt.Errorf("resource_group: %s defined twice", n.Name)
		}
		if other, ok := ids[n.ID]; ok {
			return nil, fmt.Errorf("resource_group: id %d used by %s and %s", n.ID, other, n.Name)
		}
		if !seen[n.Parent] {
			return nil, fmt.Errorf("resource_group: parent %s of %s is not defined above it", n.Parent, n.Name)
		}
		seen[n.Name], ids[n.ID] = true, n.Name
		out = append(out, n)
	}
	return out, nil
}

// ParseResourceGroupFile reads a resource_group file as OpenPBS writes it:
// one entry a line, # comments and blank lines ignored.
func ParseResourceGroupFile(text string) ([]ShareNode, error) {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return ParseShareTree(lines)
}

// ValidFairshareRes reports whether r (fairshare_usage_res) names usage
// Strata can charge: cput, walltime, or a numeric consumable resource
// (optionally written R*walltime) charged as amount x walltime.
func ValidFairshareRes(r string, defs ResourceDefs) bool {
	r = strings.TrimSuffix(r, "*walltime")
	if r == "cput" || r == "walltime" {
		return true
	}
	d, ok := defs[r]
	return ok && d.Numeric() && d.Type != TypeDuration
}

// FairshareCharge is the usage a job accrued between two resources_used
// reports (old may be nil: the run's first report): the increase of cput
// or walltime, or for a consumable R the job's Resource_List.R times the
// increase of walltime. It is never negative (a report going backwards
// charges nothing) and a pure function of its inputs, so every server
// charges the same.
func FairshareCharge(res string, j *Job, old, cur map[string]string, defs ResourceDefs) float64 {
	res = strings.TrimSuffix(res, "*walltime")
	base := res
	if res != "cput" {
		base = "walltime"
	}
	delta := float64(usedSeconds(cur, base) - usedSeconds(old, base))
	if delta <= 0 {
		return 0
	}
	if res == "cput" || res == "walltime" {
		return delta
	}
	amount := 0.0
	if s, ok := j.ResourceList[res]; ok {
		if d, ok := defs[res]; ok {
			if v, err := d.Amount(s); err == nil {
				amount = v
			}
		}
	}
	if v := amount * delta; v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return 0
}

func usedSeconds(m map[string]string, name string) int64 {
	s, ok := m[name]
	if !ok {
		return 0
	}
	v, err := ParseDuration(s)
	if err != nil || v < 0 {
		return 0
	}
	return v
}
