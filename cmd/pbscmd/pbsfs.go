package pbscmd

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const pbsfsUsage = `usage: pbsfs [-c entity1 entity2] [-g entity] [-p] [-t] [-I sched_name]
       pbsfs -d | -e | -s entity usage_value [-I sched_name]
       pbsfs --reset
       pbsfs --version
`

// pbsfsSpec: -c and -g and -s name an entity, -I a scheduler (only
// "default" exists).
const pbsfsSpec optSpec = "c:deg:I:pts:"

// fairshareServer is the part of the API pbsfs uses (kept out of Server so
// that test doubles need not implement it).
type fairshareServer interface {
	Fairshare(ctx context.Context) (*api.FairshareResponse, error)
	ChangeFairshare(ctx context.Context, req api.FairshareRequest) error
}

var _ fairshareServer = (*api.Client)(nil)

// Pbsfs runs pbsfs: print the share tree with its usage, or (managers) set
// one entity's usage, decay all usage once, trim entities the tree no
// longer names, or reset all usage. In OpenPBS pbsfs edits the usage file
// on the scheduler's host, with the scheduler stopped; in Strata usage is
// replicated state and every change is a command the server commits, so
// it takes effect on every server at once with the scheduler running.
func Pbsfs(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	reset := len(args) == 1 && args[0] == "--reset"
	var g getoptArgs
	var err error
	if !reset {
		g, err = normalizeGetopt(pbsfsSpec, args)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "pbsfs: %v\n", err)
		fmt.Fprint(env.Stderr, pbsfsUsage)
		return 1
	}
	var opts struct {
		compare, get, set  string
		decay, trim        bool
		parsable, treeForm bool
	}
	for i := 0; i < len(g.Flags); i++ {
		switch g.Flags[i] {
		case "-c":
			i++
			opts.compare = g.Flags[i]
		case "-g":
			i++
			opts.get = g.Flags[i]
		case "-s":
			i++
			opts.set = g.Flags[i]
		case "-I":
			i++
			if g.Flags[i] != "default" {
				fmt.Fprintf(env.Stderr, "pbsfs: Scheduler %s does not exist\n", g.Flags[i])
				return 1
			}
		case "-d":
			opts.decay = true
		case "-e":
			opts.trim = true
		case "-p":
			opts.parsable = true
		case "-t":
			opts.treeForm = true
		}
	}
	changes := 0
	for _, b := range []bool{reset, opts.decay, opts.trim, opts.set != ""} {
		if b {
			changes++
		}
	}
	wantOperands := 0
	if opts.set != "" || opts.compare != "" {
		wantOperands = 1
	}
	if changes > 1 || (changes == 1 && (opts.compare != "" || opts.get != "")) || len(g.Operands) != wantOperands {
		fmt.Fprint(env.Stderr, pbsfsUsage)
		return 1
	}
	s := newSession(env)
	client, ok := s.client.(fairshareServer)
	if !ok {
		fmt.Fprintln(env.Stderr, "pbsfs: fairshare is not supported by this server connection")
		return 1
	}
	if changes == 1 {
		req := api.FairshareRequest{Op: "decay"}
		switch {
		case reset:
			req.Op = "reset"
		case opts.trim:
			req.Op = "trim"
		case opts.set != "":
			v, err := strconv.ParseFloat(g.Operands[0], 64)
			if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				fmt.Fprintf(env.Stderr, "pbsfs: illegal usage value: %s\n", g.Operands[0])
				return 1
			}
			req = api.FairshareRequest{Op: "set", Entity: opts.set, Usage: v}
		}
		return pbsfsError(env, client.ChangeFairshare(ctx, req))
	}
	resp, err := client.Fairshare(ctx)
	if err != nil {
		return pbsfsError(env, err)
	}
	var b strings.Builder
	switch {
	case opts.compare != "":
		first, err := fairshareCompare(resp, opts.compare, g.Operands[0])
		if err != nil {
			fmt.Fprintf(env.Stderr, "pbsfs: %v\n", err)
			return 1
		}
		fmt.Fprintf(&b, "%s\n", first)
	case opts.get != "":
		e, ok := fairshareFind(resp, opts.get)
		if !ok {
			fmt.Fprintf(env.Stderr, "pbsfs: Entity %s does not exist\n", opts.get)
			return 1
		}
		writeFairshareEntity(&b, resp, e)
	case opts.treeForm:
		for _, e := range resp.Entries {
			fmt.Fprintf(&b, "%s%s(%s %s)\n", strings.Repeat("    ", e.Depth), treeName(e.Name), fsShares(e), fsNum(e.Usage))
		}
	case opts.parsable:
		for _, e := range resp.Entries {
			fmt.Fprintf(&b, "%s|%s|%s|%s|%.6f|%.6f|%d\n", treeName(e.Name), treeName(e.Parent), fsShares(e), fsNum(e.Usage), e.Perc*100, e.Factor, e.Rank)
		}
	default:
		writeFairshareSummary(&b, resp, env)
	}
	fmt.Fprint(env.Stdout, b.String())
	return 0
}

func pbsfsError(env *Env, err error) int {
	if err == nil {
		return 0
	}
	if reportConnect(env.Stderr, "pbsfs", err) {
		return 1
	}
	if pe, ok := model.AsPBSError(err); ok {
		fmt.Fprintf(env.Stderr, "pbsfs: %s\n", pe.Msg)
		return pe.ExitCode()
	}
	fmt.Fprintf(env.Stderr, "pbsfs: %v\n", err)
	return 1
}

// treeName is a node's name ("" for the top's parent).
func treeName(n string) string { return n }

func fsShares(e api.FairshareEntry) string {
	if e.Depth == 0 {
		return "-1"
	}
	return strconv.FormatInt(e.Shares, 10)
}

func fsNum(v float64) string { return strconv.FormatFloat(math.Round(v), 'f', -1, 64) }

func writeFairshareSummary(b *strings.Builder, r *api.FairshareResponse, env *Env) {
	fmt.Fprintf(b, "Fairshare usage units are in: %s\n", r.UsageRes)
	state := "off"
	if r.Enabled {
		state = "on"
	}
	last := "never"
	if r.LastDecay > 0 {
		loc := env.Loc
		if loc == nil {
			loc = time.Local
		}
		last = formatCtime(r.LastDecay, loc)
	}
	fmt.Fprintf(b, "fair_share: %s  entity: %s  decay: x%s every %s  last decay: %s\n", state, r.Entity,
		strconv.FormatFloat(r.DecayFactor, 'f', -1, 64), model.FormatDuration(r.DecayTime), last)
	for _, e := range r.Entries {
		rank := "-"
		if e.Rank > 0 {
			rank = strconv.Itoa(e.Rank)
		}
		parent := "-1"
		if e.Parent != "" {
			parent = treeName(e.Parent)
		}
		fmt.Fprintf(b, "%-12s: Grp: %-8s Shares: %-5s Usage: %-10s Perc: %7.3f%%  Factor: %.4f  Rank: %s\n",
			treeName(e.Name), parent, fsShares(e), fsNum(e.Usage), e.Perc*100, e.Factor, rank)
	}
}

func writeFairshareEntity(b *strings.Builder, r *api.FairshareResponse, e api.FairshareEntry) {
	fmt.Fprintf(b, "fairshare entity: %s\n", e.Name)
	fmt.Fprintf(b, "Resgroup: %s\n", treeName(e.Parent))
	fmt.Fprintf(b, "Shares: %s\n", fsShares(e))
	fmt.Fprintf(b, "Percentage: %.6f%%\n", e.Perc*100)
	fmt.Fprintf(b, "fairshare_tree_usage: %.6f\n", e.Usage/r.Entries[0].Usage)
	fmt.Fprintf(b, "fairshare_factor: %.6f\n", e.Factor)
	fmt.Fprintf(b, "usage: %s (%s)\n", fsNum(e.Usage), r.UsageRes)
	if e.Rank > 0 {
		fmt.Fprintf(b, "rank: %d\n", e.Rank)
	}
	// The path from the top, as OpenPBS's pbsfs -g prints it.
	var path []string
	for n, ok := e, true; ok; n, ok = fairshareFind(r, n.Parent) {
		path = append([]string{fmt.Sprintf("%s(%s)", treeName(n.Name), fsNum(n.Usage))}, path...)
		if n.Parent == "" {
			break
		}
	}
	fmt.Fprintf(b, "Path from root: %s\n", strings.Join(path, " -> "))
}

func fairshareFind(r *api.FairshareResponse, name string) (api.FairshareEntry, bool) {
	for _, e := range r.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return api.FairshareEntry{}, false
}

// fairshareCompare names the entity whose jobs run first (pbsfs -c).
func fairshareCompare(r *api.FairshareResponse, a, b string) (string, error) {
	ea, ok := fairshareFind(r, a)
	if !ok || ea.Rank == 0 {
		return "", fmt.Errorf("Entity %s does not exist", a)
	}
	eb, ok := fairshareFind(r, b)
	if !ok || eb.Rank == 0 {
		return "", fmt.Errorf("Entity %s does not exist", b)
	}
	if ea.Rank <= eb.Rank {
		return a, nil
	}
	return b, nil
}

// withFairshare adds a queued job's fairshare position after its comment
// (qstat -f fairshare_position).
func withFairshare(attrs []attr, position string) []attr {
	if position == "" {
		return attrs
	}
	at := len(attrs)
	for i, a := range attrs {
		if a.Name == "comment" {
			at = i + 1
		}
	}
	out := make([]attr, 0, len(attrs)+1)
	out = append(out, attrs[:at]...)
	out = append(out, attr{Name: "fairshare_position", Value: position})
	return append(out, attrs[at:]...)
}
