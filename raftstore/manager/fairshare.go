package manager

import (
	"math"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// applyFairshareAttr sets one fairshare attribute of the sched object
// (model.FairshareConfig). It reports false for attributes it does not
// own. The share tree (resource_group) is a list of resource_group lines;
// the whole tree is checked after every change, so a set that leaves a
// child without its parent is refused and nothing changes.
func applyFairshareAttr(c *model.ServerConfig, a Attr) (bool, error) {
	switch a.Name {
	case "fair_share", "fairshare_entity", "fairshare_usage_res", "fairshare_decay_time",
		"fairshare_decay_factor", "unknown_shares", "fairshare_enforce_no_shares", "resource_group":
	default:
		return false, nil
	}
	fs := c.Sched.Fairshare.Copy()
	if fs == nil {
		fs = &model.FairshareConfig{}
	}
	if err := setFairshare(fs, c.Defs, a); err != nil {
		return true, err
	}
	if !fs.Enabled && fs.Entity == "" && fs.UsageRes == "" && fs.DecayTime == 0 && fs.DecayFactor == 0 &&
		fs.UnknownShares == nil && fs.EnforceNoShares == nil && len(fs.Tree) == 0 {
		fs = nil // everything unset: no fairshare object at all
	}
	c.Sched.Fairshare = fs
	return true, nil
}

func setFairshare(fs *model.FairshareConfig, defs model.ResourceDefs, a Attr) error {
	switch a.Name {
	case "fair_share":
		return setBool(&fs.Enabled, a, false)
	case "fairshare_entity":
		if a.Op != "" && !model.ValidFairshareEntity(a.Value) {
			return badValue(a)
		}
		return setString(&fs.Entity, a, "")
	case "fairshare_usage_res":
		if a.Op != "" && !model.ValidFairshareRes(a.Value, defs) {
			return badValue(a)
		}
		return setString(&fs.UsageRes, a, "")
	case "fairshare_decay_time":
		if a.Op == "" {
			fs.DecayTime = 0
			return nil
		}
		secs, err := model.ParseDuration(strings.TrimSpace(a.Value))
		if err != nil || secs <= 0 || a.Op != "=" {
			return badValue(a)
		}
		fs.DecayTime = secs
		return nil
	case "fairshare_decay_factor":
		if a.Op == "" {
			fs.DecayFactor = 0
			return nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
		// 0 < factor < 1, as OpenPBS: 1 would never decay, 0 forget all.
		if err != nil || a.Op != "=" || math.IsNaN(f) || f <= 0 || f >= 1 {
			return badValue(a)
		}
		fs.DecayFactor = f
		return nil
	case "unknown_shares":
		if a.Op == "" {
			fs.UnknownShares = nil
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(a.Value), 10, 64)
		if err != nil || n < 0 || n > math.MaxInt32 || a.Op != "=" {
			return badValue(a)
		}
		fs.UnknownShares = &n
		return nil
	case "fairshare_enforce_no_shares":
		if a.Op == "" {
			fs.EnforceNoShares = nil
			return nil
		}
		b := true
		if err := setBool(&b, a, true); err != nil {
			return err
		}
		fs.EnforceNoShares = &b
		return nil
	}
	// resource_group: lines normalised to single spaces so that -= matches
	// what p s printed.
	if a.Op != "" {
		var norm []string
		for _, l := range splitList(a.Value) {
			n, err := model.ParseShareLine(l)
			if err != nil {
				return badValue(a)
			}
			norm = append(norm, n.String())
		}
		a.Value = strings.Join(norm, ",")
	}
	tree := fs.Tree
	if err := setList(&tree, a, nil); err != nil {
		return err
	}
	if _, err := model.ParseShareTree(tree); err != nil {
		return &model.PBSError{Code: model.PBSEBadAttrVal, Msg: "Illegal attribute or resource value " + err.Error()}
	}
	fs.Tree = tree
	return nil
}

// describeFairshare adds the set fairshare attributes to the sched object.
func describeFairshare(it *items, fs *model.FairshareConfig) {
	if fs == nil {
		return
	}
	if fs.Enabled {
		it.add("fair_share", model.FormatBool(true))
	}
	it.add("fairshare_entity", fs.Entity)
	it.add("fairshare_usage_res", fs.UsageRes)
	if fs.DecayTime > 0 {
		it.add("fairshare_decay_time", strconv.FormatInt(fs.DecayTime, 10))
	}
	if fs.DecayFactor > 0 {
		it.add("fairshare_decay_factor", strconv.FormatFloat(fs.DecayFactor, 'f', -1, 64))
	}
	if fs.UnknownShares != nil {
		it.add("unknown_shares", strconv.FormatInt(*fs.UnknownShares, 10))
	}
	if fs.EnforceNoShares != nil {
		it.add("fairshare_enforce_no_shares", model.FormatBool(*fs.EnforceNoShares))
	}
	it.add("resource_group", fs.Tree...)
}
