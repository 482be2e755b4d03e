package raftstore

import (
	"slices"
	"strconv"
	"unique"

	"github.com/strata-hpc/strata/model"
)

// The compact job representation of the state store.
//
// A queued job's row used to cost 3 KiB of heap and more, most of it the
// same bytes in every job: each decoded Raft entry gives every job its own
// copy of the owner, queue, project, Variable_List (the PBS_O_* variables
// of one login session), select, Resource_List and history lines. Before a
// job is stored, compact makes those parts shared with the other jobs
// that have the same values:
//
//   - strings that repeat between jobs go through unique.Make, whose
//     canonical copies the runtime frees when no job refers to them;
//   - Variable_List, the select and Resource_List are shared by content
//     through bounded tables (sharedTable), so identical jobs (a burst from
//     a workflow manager, a parameter sweep) hold one copy.
//
// Nothing about a job's value changes (qstat -f is byte-identical, golden
// test in cmd/pbscmd), the Raft log and snapshot formats are unchanged,
// and the tables are not replicated state: two servers may share
// differently and still hold equal jobs. Sharing is safe because stored
// jobs are immutable: writers change a Copy, and Copy gives the copy its
// own Resource_List (the one map updated in place), while Variable_List and
// the select are only ever replaced whole. Shared slices have no spare
// capacity, so an append on a copy reallocates instead of writing into
// another job's array.
type compactor struct {
	envs    sharedTable[[]model.EnvVar]
	selects sharedTable[model.Select]
	lists   sharedTable[map[string]string]
	execs   sharedTable[[]model.ExecChunk]
	tmpl    templates // finished subjobs' shared part (subjob_history.go)
	key     []byte    // scratch for table keys
}

// sharedTableMax bounds each table. When one is full it starts again
// empty: jobs keep what they share, later jobs share new copies. A site
// rarely has more distinct values in flight; a table is a cache, never
// state.
const sharedTableMax = 4096

// sharedTable maps an encoded value to the one copy jobs share.
type sharedTable[T any] struct {
	m map[string]T
}

// get returns the shared value for key, storing v as it when there is
// none; key is only copied when stored.
func (t *sharedTable[T]) get(key []byte, v T) T {
	if s, ok := t.m[string(key)]; ok {
		return s
	}
	if t.m == nil || len(t.m) >= sharedTableMax {
		t.m = make(map[string]T)
	}
	t.m[string(key)] = v
	return v
}

func newCompactor() *compactor { return &compactor{} }

// str returns the canonical copy of s.
func str(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}

// job makes j's repeated parts shared, in place. j is the writer's own
// copy, not yet stored.
func (c *compactor) job(j *model.Job) {
	for _, p := range []*string{&j.Name, &j.Owner, &j.User, &j.Group, &j.State, &j.Queue, &j.Server,
		&j.Hold, &j.Join, &j.Keep, &j.Shell, &j.Account, &j.Project, &j.Mail, &j.MailTo, &j.Checkpt,
		&j.SubmitArgs, &j.SubmitHost, &j.Script, &j.Comment} {
		*p = str(*p)
	}
	for i := range j.History {
		j.History[i].Text = str(j.History[i].Text)
	}
	if j.JobExt.IsZero() {
		j.JobExt = nil // cleared again (a requeued job): the row alone is the job
	}
	for i := range j.Argv {
		j.Argv[i] = str(j.Argv[i])
	}
	if e := j.JobExt; e != nil {
		for _, p := range []*string{&e.GroupList, &e.Umask, &e.Depend, &e.MSHost} {
			*p = str(*p)
		}
	}
	j.Env = c.env(j.Env)
	j.Select = c.sel(j.Select)
	j.ResourceList = c.list(j.ResourceList)
}

func (c *compactor) env(env []model.EnvVar) []model.EnvVar {
	if len(env) == 0 {
		return env
	}
	k := c.key[:0]
	for _, e := range env {
		k = appendField(appendField(k, e.Name), e.Value)
	}
	c.key = k
	if shared, ok := c.envs.m[string(k)]; ok {
		return shared
	}
	out := make([]model.EnvVar, len(env))
	for i, e := range env {
		out[i] = model.EnvVar{Name: str(e.Name), Value: str(e.Value)}
	}
	return c.envs.get(k, out)
}

func (c *compactor) sel(s model.Select) model.Select {
	if len(s) == 0 {
		return s
	}
	k := c.key[:0]
	for _, ch := range s {
		k = strconv.AppendInt(k, int64(ch.Count), 10)
		k = append(k, 0)
		for _, r := range ch.Res {
			k = appendField(appendField(k, r.Name), r.Value)
		}
		k = append(k, 1)
		for _, name := range model.SortedKeys(ch.Consume) {
			k = strconv.AppendFloat(appendField(k, name), ch.Consume[name], 'g', -1, 64)
			k = append(k, 0)
		}
		k = append(k, 1)
		for _, name := range model.SortedKeys(ch.Match) {
			k = appendField(appendField(k, name), ch.Match[name])
		}
		k = append(k, 2)
	}
	c.key = k
	if shared, ok := c.selects.m[string(k)]; ok {
		return shared
	}
	return c.selects.get(k, slices.Clip(s))
}

func (c *compactor) list(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	k := c.key[:0]
	for _, name := range model.SortedKeys(m) {
		k = appendField(appendField(k, name), m[name])
	}
	c.key = k
	if shared, ok := c.lists.m[string(k)]; ok {
		return shared
	}
	out := make(map[string]string, len(m))
	for name, v := range m {
		out[str(name)] = str(v)
	}
	return c.lists.get(k, out)
}

// appendField appends s and a separator no value contains.
func appendField(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// exec shares a finished job's exec_vnode by content: jobs that ran on
// the same vnodes with the same amounts hold one copy. Only for jobs
// that will not change again (finished subjobs): a running job's Exec is
// replaced whole by writers too, but nothing gains from sharing it.
func (c *compactor) exec(ex []model.ExecChunk) []model.ExecChunk {
	if len(ex) == 0 {
		return ex
	}
	k := c.key[:0]
	for _, ch := range ex {
		k = strconv.AppendInt(k, int64(ch.MPIProcs), 10)
		for _, sh := range ch.Shares {
			k = appendField(appendField(appendField(k, sh.Vnode), sh.Host), sh.AOE)
			for _, name := range model.SortedKeys(sh.Amounts) {
				k = strconv.AppendFloat(appendField(k, name), sh.Amounts[name], 'g', -1, 64)
				k = append(k, 0)
			}
			k = append(k, 1)
		}
		k = append(k, 2)
	}
	c.key = k
	if shared, ok := c.execs.m[string(k)]; ok {
		return shared
	}
	return c.execs.get(k, slices.Clip(ex))
}
