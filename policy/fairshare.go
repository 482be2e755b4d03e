package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// TreeRoot is the name of the share tree's top (resource_group lines call
// it root).
const TreeRoot = "TREEROOT"

// Variables fairshare gives job_sort_formula and job_sort_key (OpenPBS's
// names; fair_share_perc and fairshare_perc are the same value).
const (
	VarFairSharePerc      = "fair_share_perc"
	VarFairsharePerc      = "fairshare_perc"
	VarFairshareTreeUsage = "fairshare_tree_usage"
	VarFairshareFactor    = "fairshare_factor"
)

// IsFairshareVar reports whether name is one of the fairshare variables.
func IsFairshareVar(name string) bool {
	switch name {
	case VarFairSharePerc, VarFairsharePerc, VarFairshareTreeUsage, VarFairshareFactor:
		return true
	}
	return false
}

// Fairshare is the share tree of one cycle with the replicated usage laid
// on it. Every entity of the cycle is a node: those the tree does not name
// are leaves of the "unknown" group (one share each), which hangs under
// root with unknown_shares unless the tree defines it.
//
// A node's perc (fair_share_perc) is its fraction of the machine: its
// parent's perc times its shares over the shares of it and its siblings.
// A group's usage is its own plus its children's; every node uses at least
// 1, as in OpenPBS. Entities are ranked as OpenPBS's compare_path does:
// walk both paths down from root and, at the first level where they part,
// the node with less usage per perc is the more deserving. Strata compares
// the whole path lexicographically and breaks exact ties by name, which
// makes the order a total one (OpenPBS's ties fall to an unstable sort).
type Fairshare struct {
	// Order is fair_share: jobs are ordered by Rank after the formula.
	Order bool
	// Enforce is fairshare_enforce_no_shares.
	Enforce bool
	kind    string
	res     string   // fairshare_usage_res without "*walltime"
	nodes   []fsNode // 0 is root
	index   map[string]int
	rank    map[string]int
	ranked  []int // nodes of entities in rank order
}

type fsNode struct {
	name     string
	parent   int
	shares   int64
	perc     float64
	usage    float64
	children []int
	depth    int
}

// NewFairshare lays usage (by entity) on the tree of cfg (nil: no tree,
// every entity unknown) and ranks the tree's leaves, the given entities
// and every entity with usage.
func NewFairshare(cfg *model.FairshareConfig, usage map[string]float64, entities []string) *Fairshare {
	f := &Fairshare{Order: cfg != nil && cfg.Enabled, Enforce: cfg.Enforce(), kind: cfg.EntityKind(), res: cfg.Resource(),
		index: map[string]int{}}
	// The top is TREEROOT (as OpenPBS prints it), not in the index: a
	// user called root is an entity like any other.
	f.nodes = []fsNode{{name: TreeRoot, parent: -1, shares: 1}}
	var tree []model.ShareNode
	if cfg != nil {
		tree, _ = model.ParseShareTree(cfg.Tree) // validated when set
	}
	for _, n := range tree {
		parent := 0
		if n.Parent != model.FairshareRoot {
			parent = f.index[n.Parent]
		}
		f.add(n.Name, parent, n.Shares)
	}
	unknown, defined := f.index[model.FairshareUnknown]
	if !defined {
		unknown = f.add(model.FairshareUnknown, 0, cfg.Unknown())
	}
	// The entities ranked: the tree's leaves, the given ones and those
	// with usage.
	seen := map[string]bool{}
	var all []string
	for _, n := range tree {
		if len(f.nodes[f.index[n.Name]].children) == 0 {
			seen[n.Name] = true
			all = append(all, n.Name)
		}
	}
	for _, e := range entities {
		if e == "" {
			e = model.FairshareUnknown // see EntityOf
		}
		if !seen[e] {
			seen[e] = true
			all = append(all, e)
		}
	}
	for _, e := range model.SortedKeys(usage) {
		if !seen[e] {
			seen[e] = true
			all = append(all, e)
		}
	}
	slices.Sort(all)
	for _, e := range all {
		if _, ok := f.index[e]; !ok {
			f.add(e, unknown, 1)
		}
	}
	if !defined && len(f.nodes[unknown].children) == 0 && !seen[model.FairshareUnknown] {
		// An empty unknown group takes no shares: the tree's own
		// percentages are what the site wrote until someone unknown
		// has work or usage.
		f.nodes[unknown].shares = 0
	}
	for _, e := range all {
		f.ranked = append(f.ranked, f.index[e])
	}
	f.layUsage(usage)
	return f
}

// WithUsage is f over other usage: the same tree and entities (usage of
// entities f does not know is ignored), ranked again. The simulator calls
// it every cycle instead of building the tree anew.
func (f *Fairshare) WithUsage(usage map[string]float64) *Fairshare {
	g := *f
	g.nodes = slices.Clone(f.nodes) // children slices are shared, read only
	g.ranked = slices.Clone(f.ranked)
	for i := range g.nodes {
		g.nodes[i].usage = 0
	}
	g.layUsage(usage)
	return &g
}

// layUsage sets the entities' usage, settles the tree and ranks the
// entities as compare_path orders them.
func (f *Fairshare) layUsage(usage map[string]float64) {
	for e, u := range usage {
		if i, ok := f.index[e]; ok {
			f.nodes[i].usage = u
		}
	}
	f.settle(0, 1)
	paths := make([][]float64, len(f.nodes))
	for _, i := range f.ranked {
		paths[i] = f.ratios(i)
	}
	slices.SortFunc(f.ranked, func(a, b int) int {
		if c := slices.Compare(paths[a], paths[b]); c != 0 {
			return c
		}
		return strings.Compare(f.nodes[a].name, f.nodes[b].name)
	})
	f.rank = make(map[string]int, len(f.ranked))
	for r, i := range f.ranked {
		f.rank[f.nodes[i].name] = r
	}
}

func (f *Fairshare) add(name string, parent int, shares int64) int {
	i := len(f.nodes)
	f.nodes = append(f.nodes, fsNode{name: name, parent: parent, shares: shares, depth: f.nodes[parent].depth + 1})
	f.nodes[parent].children = append(f.nodes[parent].children, i)
	f.index[name] = i
	return i
}

// settle computes perc top-down and usage bottom-up from node i.
func (f *Fairshare) settle(i int, perc float64) float64 {
	n := &f.nodes[i]
	n.perc = perc
	var total int64
	for _, c := range n.children {
		total += f.nodes[c].shares
	}
	usage := max(n.usage, 0)
	for _, c := range n.children {
		p := 0.0
		if total > 0 {
			p = perc * float64(f.nodes[c].shares) / float64(total)
		}
		usage += f.settle(c, p)
	}
	f.nodes[i].usage = max(usage, 1)
	return f.nodes[i].usage
}

// ratios is usage per perc of each node on i's path below root (+Inf for
// a node without shares, which is least deserving).
func (f *Fairshare) ratios(i int) []float64 {
	out := make([]float64, f.nodes[i].depth)
	for n := i; n > 0; n = f.nodes[n].parent {
		r := math.Inf(1)
		if p := f.nodes[n].perc; p > 0 {
			r = f.nodes[n].usage / p
		}
		out[f.nodes[n].depth-1] = r
	}
	return out
}

// EntityOf is the entity j is charged to; a job without one (no
// Account_Name under fairshare_entity Account_Name) counts as the unknown
// group itself.
func (f *Fairshare) EntityOf(j *model.Job) string {
	if e := model.FairshareEntityOf(j, f.kind); e != "" {
		return e
	}
	return model.FairshareUnknown
}

// Rank is j's entity's position (0 most deserving); entities the tree was
// not built with come last.
func (f *Fairshare) Rank(j *model.Job) int {
	if r, ok := f.rank[f.EntityOf(j)]; ok {
		return r
	}
	return len(f.ranked)
}

// NoShares reports whether j's entity has no share of the machine (it or
// an ancestor has zero shares).
func (f *Fairshare) NoShares(j *model.Job) bool {
	i, ok := f.index[f.EntityOf(j)]
	return ok && f.nodes[i].perc == 0
}

// Value is a fairshare formula variable for j: fair_share_perc (the
// entity's fraction of the machine, 0..1), fairshare_tree_usage (its usage
// over all usage) or fairshare_factor (2^(-tree_usage/perc), 0 without
// shares).
func (f *Fairshare) Value(j *model.Job, name string) float64 {
	if f == nil {
		return 0
	}
	i, ok := f.index[f.EntityOf(j)]
	if !ok {
		return 0
	}
	n := f.nodes[i]
	treeUsage := n.usage / f.nodes[0].usage
	switch name {
	case VarFairSharePerc, VarFairsharePerc:
		return n.perc
	case VarFairshareTreeUsage:
		return treeUsage
	case VarFairshareFactor:
		if n.perc <= 0 {
			return 0
		}
		return math.Pow(2, -treeUsage/n.perc)
	}
	return 0
}

// Position says where j's entity stands, for the job's comment and
// tracejob: "fairshare rank 2 of 5 (alice: usage 3600, share 25%)".
func (f *Fairshare) Position(j *model.Job) string {
	e := f.EntityOf(j)
	i, ok := f.index[e]
	if !ok {
		return ""
	}
	return fmt.Sprintf("fairshare rank %d of %d (%s: usage %.0f, share %s%%)", f.Rank(j)+1, len(f.ranked), e,
		f.nodes[i].usage, formatPerc(f.nodes[i].perc))
}

func formatPerc(p float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", p*100), "0"), ".")
}

// FairshareEntry is one node of the tree as pbsfs prints it.
type FairshareEntry struct {
	Name   string
	Parent string
	Depth  int
	Shares int64
	Perc   float64 // fraction of the machine
	Usage  float64
	// Factor is 2^(-usage/root usage/perc) (0 without shares).
	Factor float64
	// Rank is the entity's fairshare position, 1 most deserving; 0 for
	// groups that are no entity.
	Rank int
}

// Entries lists the tree depth first, children by name.
func (f *Fairshare) Entries() []FairshareEntry {
	var out []FairshareEntry
	var walk func(i int)
	walk = func(i int) {
		n := f.nodes[i]
		e := FairshareEntry{Name: n.name, Depth: n.depth, Shares: n.shares, Perc: n.perc, Usage: n.usage}
		if n.parent >= 0 {
			e.Parent = f.nodes[n.parent].name
		}
		if n.perc > 0 {
			e.Factor = math.Pow(2, -(n.usage/f.nodes[0].usage)/n.perc)
		}
		if r, ok := f.rank[n.name]; ok {
			e.Rank = r + 1
		}
		out = append(out, e)
		kids := slices.Clone(n.children)
		slices.SortFunc(kids, func(a, b int) int { return cmp.Compare(f.nodes[a].name, f.nodes[b].name) })
		for _, c := range kids {
			walk(c)
		}
	}
	walk(0)
	return out
}
