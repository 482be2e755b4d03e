package pbscmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
)

const qselectUsage = `usage: qselect [-a [op]date_time] [-A account_string] [-h hold_list] [-H] [-J]
	[-l resource_list] [-N name] [-p [op]priority] [-q destination] [-r rerun]
	[-s states] [-t] [-T] [-u user_name] [-x]
       qselect --version
`

// qselectFilter is what qselect matches jobs against; empty fields match
// everything.
type qselectFilter struct {
	states  string
	users   []string
	queue   string
	name    string
	account string
	holds   string
	history bool
	res     []resCmp
}

// resCmp is one -l comparison "res.op.value", op one of eq ne lt le gt ge.
type resCmp struct {
	name, op, value string
}

// Qselect runs qselect: print the ids of the jobs that match.
func Qselect(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	var f qselectFilter
	err := parseOptions("qselect", qselectSpec, "l", args, func(c *options, g getoptArgs) error {
		if len(g.Operands) > 0 {
			return &cmdError{Code: 2, Usage: true}
		}
		f.states = c.String("s")
		if f.states != "" && strings.Trim(f.states, "QHWRSEBTUXFM") != "" {
			return errIllegalOpt('s')
		}
		if u := c.String("u"); u != "" {
			for _, name := range strings.Split(u, ",") {
				name, _, _ = strings.Cut(name, "@")
				f.users = append(f.users, name)
			}
		}
		f.queue, _, _ = strings.Cut(c.String("q"), "@")
		f.name = c.String("N")
		f.account = c.String("A")
		f.holds = c.String(flagName('h'))
		f.history = c.Bool("x") || c.Bool("H")
		if c.Bool("H") && f.states == "" {
			f.states = "FM"
		}
		for _, l := range c.StringSlice("l") {
			for _, item := range strings.Split(l, ",") {
				cmp, ok := parseResCmp(item)
				if !ok {
					return errIllegalOpt('l')
				}
				f.res = append(f.res, cmp)
			}
		}
		return nil
	})
	if err != nil {
		return reportUsage(env, "qselect", qselectUsage, err)
	}
	s := newSession(env)
	resp, err := s.client.Jobs(ctx, nil, f.history)
	if err != nil {
		if !reportConnect(env.Stderr, "qselect", err) {
			fmt.Fprintf(env.Stderr, "qselect: %s\n", errText(err))
			if pe, ok := model.AsPBSError(err); ok {
				return pe.ExitCode()
			}
		}
		return 1
	}
	defs := resp.Server.Defs
	if len(defs) == 0 {
		defs = model.BuiltinResources()
	}
	for _, j := range resp.Jobs {
		if f.match(j.Job, defs) {
			fmt.Fprintln(env.Stdout, j.ID)
		}
	}
	return 0
}

// parseResCmp reads "ncpus.gt.4" or "ncpus=4" (eq).
func parseResCmp(s string) (resCmp, bool) {
	if name, v, ok := strings.Cut(s, "="); ok && !strings.Contains(name, ".") {
		return resCmp{name, "eq", v}, name != "" && v != ""
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return resCmp{}, false
	}
	switch parts[1] {
	case "eq", "ne", "lt", "le", "gt", "ge":
		return resCmp{parts[0], parts[1], parts[2]}, parts[0] != "" && parts[2] != ""
	}
	return resCmp{}, false
}

func (f *qselectFilter) match(j *model.Job, defs model.ResourceDefs) bool {
	if f.states != "" && !strings.Contains(f.states, j.State) {
		return false
	}
	if !f.history && j.IsFinished() {
		return false
	}
	if len(f.users) > 0 {
		owner, _, _ := strings.Cut(j.Owner, "@")
		found := false
		for _, u := range f.users {
			found = found || u == owner
		}
		if !found {
			return false
		}
	}
	if (f.queue != "" && f.queue != j.Queue) || (f.name != "" && f.name != j.Name) || (f.account != "" && f.account != j.Account) {
		return false
	}
	if f.holds != "" && f.holds != j.Hold {
		return false
	}
	for _, c := range f.res {
		if !c.holds(j.ResourceList[c.name], defs[c.name]) {
			return false
		}
	}
	return true
}

// holds compares a job's value with the wanted one, numerically when the
// resource is numeric.
func (c resCmp) holds(have string, d model.ResourceDef) bool {
	if have == "" {
		return c.op == "ne"
	}
	cmp := strings.Compare(have, c.value)
	if d.Numeric() {
		a, err1 := d.Amount(have)
		b, err2 := d.Amount(c.value)
		if err1 == nil && err2 == nil {
			switch {
			case a < b:
				cmp = -1
			case a > b:
				cmp = 1
			default:
				cmp = 0
			}
		}
	}
	switch c.op {
	case "eq":
		return cmp == 0
	case "ne":
		return cmp != 0
	case "lt":
		return cmp < 0
	case "le":
		return cmp <= 0
	case "gt":
		return cmp > 0
	}
	return cmp >= 0
}
