package pbscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const qstatUsage = `usage: 
qstat [-f] [-J] [-p] [-t] [-x] [-E] [-F format] [-D delim] [ job_identifier... | destination... ]
qstat [-a|-i|-r|-H|-T] [-J] [-t] [-u user] [-n] [-s] [-G|-M] [-1] [-w]
	[ job_identifier... | destination... ]
qstat -Q [-f] [-F format] [-D delim] [ destination... ]
qstat -q [-G|-M] [ destination... ]
qstat -B [-f] [-F format] [-D delim] [ server_name... ]
qstat --version
`

// qstatSpec is qstat's whole option grammar.
const qstatSpec optSpec = "1aBD:EfF:GHiJMnpqQrstTu:wx"

// qstatOpts are qstat's options.
type qstatOpts struct {
	full, wide, history, percent, arraysOnly bool
	subjobs                                  bool   // -t
	format                                   string // "", "json" or "dsv"
	delim                                    string

	// The alternate format (-a and the options that imply it) and its
	// job filters.
	alt         bool
	altOpts     altOpts
	states      string   // -i, -r, -H: only jobs in these states
	users       []string // -u
	onlyHistory bool     // -H
	// The queue and server formats.
	queues, queueLimits, server bool
}

// Qstat runs qstat with args and returns the exit status.
func Qstat(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	opts, operands, err := parseQstat(args)
	if err != nil {
		return reportUsage(env, "qstat", qstatUsage, err)
	}
	s := newSession(env)
	if opts.queues || opts.queueLimits || opts.server {
		return qstatServer(ctx, env, s, opts, operands)
	}
	res := &qstatResult{}
	code := 0
	if len(operands) == 0 {
		code = res.all(ctx, env, s, opts)
	} else {
		code = res.each(ctx, env, s, opts, operands)
	}
	if code < 0 { // nothing is printed after a connection failure
		return 1
	}
	io.WriteString(env.Stdout, renderQstat(env, s, res, opts))
	return code
}

// reportUsage prints a command-line error (cmdError or getopt diagnostic).
func reportUsage(env *Env, cmd, usage string, err error) int {
	var ce *cmdError
	var ge *getoptError
	switch {
	case errors.As(err, &ce):
		return printCmdError(env.Stderr, cmd, usage, ce)
	case errors.As(err, &ge):
		return printCmdError(env.Stderr, cmd, usage, usageErr(2, "%s", ge.Msg))
	}
	fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, err)
	return 1
}

// parseQstat parses and checks qstat's options.
func parseQstat(args []string) (qstatOpts, []string, error) {
	var o qstatOpts
	var operands []string
	err := parseOptions("qstat", qstatSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		o.queues, o.queueLimits, o.server = c.Bool("Q"), c.Bool("q"), c.Bool("B")
		o.alt = c.Bool("a") || c.Bool("i") || c.Bool("r") || c.IsSet("u") || c.Bool("n") ||
			c.Bool("s") || c.Bool("T") || c.Bool("H") || c.Bool("1") || c.Bool("G") || c.Bool("M")
		o.altOpts = altOpts{wide: c.Bool("w"), nodes: c.Bool("n"), comments: c.Bool("s"),
			oneLine: c.Bool("1"), estimate: c.Bool("T")}
		if c.Bool("G") {
			o.altOpts.sizeUnit = 'G'
		} else if c.Bool("M") {
			o.altOpts.sizeUnit = 'M'
		}
		switch {
		case c.Bool("H"):
			o.states, o.onlyHistory = model.StateFinished+model.StateMoved, true
		case c.Bool("i"):
			o.states = model.StateQueued + model.StateHeld + model.StateWaiting
		case c.Bool("r"):
			o.states = model.StateRunning + model.StateSuspended
		}
		if u := c.String("u"); c.IsSet("u") {
			for _, name := range strings.Split(u, ",") {
				name, _, _ = strings.Cut(name, "@")
				o.users = append(o.users, name)
			}
		}
		o.full = c.Bool("f")
		if o.full && o.alt && !o.onlyHistory {
			// -f wins over the alternate options, as in OpenPBS.
			o.alt = false
		}
		o.wide = c.Bool("w")
		o.history = c.Bool("x") || c.Bool("H")
		o.percent = c.Bool("p")
		o.arraysOnly = c.Bool("J")
		o.subjobs = c.Bool("t")
		o.format = c.String("F")
		o.delim = "|"
		if c.IsSet("D") {
			o.delim = c.String("D")
		}
		return nil
	})
	if err != nil {
		return o, nil, err
	}
	switch o.format {
	case "", "json", "dsv":
	default:
		return o, nil, usageErr(2, "invalid -F value %s", o.format)
	}
	if o.format != "" && (!o.full || o.wide) {
		return o, nil, usageErr(2, "-F needs -f and cannot be combined with -w")
	}
	return o, operands, nil
}

// qstatResult collects what a qstat run found.
type qstatResult struct {
	jobs []*model.Job
	info api.ServerInfo
	// fairshare holds queued jobs' fairshare_position by id (computed by
	// the server, not part of the stored job).
	fairshare map[string]string
}

// noteFairshare keeps a job status's fairshare position for qstat -f.
func (r *qstatResult) noteFairshare(st *api.JobStatus) {
	if st.Fairshare == "" {
		return
	}
	if r.fairshare == nil {
		r.fairshare = map[string]string{}
	}
	r.fairshare[st.ID] = st.Fairshare
}

// all lists every job; it returns the exit status, or -1 after a
// connection failure.
func (r *qstatResult) all(ctx context.Context, env *Env, s *session, o qstatOpts) int {
	resp, err := queryJobs(ctx, s, nil, o)
	if err != nil {
		return qstatError(env, err, "")
	}
	r.info = resp.Server
	if o.history && resp.Server.Name != "" && !resp.Server.History {
		// OpenPBS says so and still exits 0.
		fmt.Fprintf(env.Stderr, "qstat: %s\n", model.Message(model.PBSEJobHistNotSet))
		return 0
	}
	for _, j := range resp.Jobs {
		r.noteFairshare(j)
		if o.history || !j.IsFinished() || j.IsSubjob() {
			r.jobs = append(r.jobs, j.Job)
		}
	}
	sort.SliceStable(r.jobs, func(a, b int) bool { return model.LessJobID(r.jobs[a].ID, r.jobs[b].ID) })
	return 0
}

// each queries the operands one by one so that each failure is reported
// and the others still shown; the exit status is the last failure's.
func (r *qstatResult) each(ctx context.Context, env *Env, s *session, o qstatOpts, operands []string) int {
	code := 0
	for _, op := range operands {
		id, err := model.ParseJobID(op)
		if err != nil && isDestination(op) {
			// A destination (queue, @server, queue@server): its jobs.
			if c := r.destination(ctx, env, s, o, op); c < 0 {
				return c
			} else if c != 0 {
				code = c
			}
			continue
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "qstat: illegally formed job identifier: %s\n", op)
			code = 1
			continue
		}
		full, err := expandJobID(ctx, s, id)
		if err != nil {
			return qstatError(env, err, "")
		}
		resp, err := queryJobs(ctx, s, []string{full}, o)
		if err != nil {
			if c := qstatError(env, err, full); c < 0 {
				return c
			} else if c != 0 {
				code = c
			}
			continue
		}
		r.info = resp.Server
		if len(resp.Jobs) == 0 {
			fmt.Fprintf(env.Stderr, "qstat: %s %s\n", model.Message(model.PBSEUnknownJobID), full)
			code = model.Err(model.PBSEUnknownJobID).ExitCode()
			continue
		}
		for _, j := range resp.Jobs {
			r.noteFairshare(j)
			if !o.history && j.IsFinished() && !j.IsSubjob() {
				code = jobFinished(env, j.ID)
				continue
			}
			r.jobs = append(r.jobs, j.Job)
		}
	}
	return code
}

// isDestination reports whether op reads as queue, @server or
// queue@server.
func isDestination(op string) bool {
	q, srv, hasAt := strings.Cut(op, "@")
	if q == "" && (!hasAt || srv == "") {
		return false
	}
	// As in OpenPBS, an operand starting with a digit is a job id.
	if q != "" && q[0] >= '0' && q[0] <= '9' {
		return false
	}
	ok := func(s string) bool {
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.", c)) {
				return false
			}
		}
		return true
	}
	return ok(q) && ok(srv) && (!hasAt || srv != "")
}

// destination adds the jobs of a queue (all jobs for "@server"); an
// unknown queue is "Unknown queue" (170).
func (r *qstatResult) destination(ctx context.Context, env *Env, s *session, o qstatOpts, dest string) int {
	queue, _, _ := strings.Cut(dest, "@")
	resp, err := queryJobs(ctx, s, nil, o)
	if err != nil {
		return qstatError(env, err, "")
	}
	r.info = resp.Server
	if queue != "" {
		known := false
		for _, q := range resp.Server.Queues {
			known = known || q.Name == queue
		}
		if !known {
			fmt.Fprintf(env.Stderr, "qstat: %s %s\n", model.Message(model.PBSEUnknownQueue), dest)
			return model.Err(model.PBSEUnknownQueue).ExitCode()
		}
	}
	var found []*model.Job
	for _, j := range resp.Jobs {
		r.noteFairshare(j)
		if (queue == "" || j.Queue == queue) && (o.history || !j.IsFinished() || j.IsSubjob()) {
			found = append(found, j.Job)
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return model.LessJobID(found[a].ID, found[b].ID) })
	r.jobs = append(r.jobs, found...)
	return 0
}

// expandJobID completes a short id with the default server's name.
func expandJobID(ctx context.Context, s *session, id model.JobID) (string, error) {
	if id.Server != "" {
		return id.Full(""), nil
	}
	name, err := s.serverName(ctx)
	if err != nil {
		return "", err
	}
	return id.Full(name), nil
}

// jobFinished reports a finished job asked for without -x.
func jobFinished(env *Env, id string) int {
	fmt.Fprintf(env.Stderr, "qstat: %s %s, use -x or -H to obtain historical job information\n",
		id, model.Message(model.PBSEHistJobID))
	return model.Err(model.PBSEHistJobID).ExitCode()
}

// qstatError prints a server error about id (empty for a whole-list
// query) and returns the exit status, -1 for a connection failure.
func qstatError(env *Env, err error, id string) int {
	if reportConnect(env.Stderr, "qstat", err) {
		return -1
	}
	pe, ok := model.AsPBSError(err)
	if !ok {
		fmt.Fprintf(env.Stderr, "qstat: %v\n", err)
		return 1
	}
	switch pe.Code {
	case model.PBSEJobHistNotSet:
		fmt.Fprintf(env.Stderr, "qstat: %s\n", pe.Msg)
		return 0
	case model.PBSEHistJobID:
		if id != "" {
			return jobFinished(env, id)
		}
	}
	if id != "" {
		fmt.Fprintf(env.Stderr, "qstat: %s %s\n", pe.Msg, id)
	} else {
		fmt.Fprintf(env.Stderr, "qstat: %s\n", pe.Msg)
	}
	return pe.ExitCode()
}

// renderQstat formats the jobs found.
func renderQstat(env *Env, s *session, r *qstatResult, o qstatOpts) string {
	jobs := selectArrays(r.jobs, o)
	if o.altOpts.estimate {
		jobs = byEstimatedStart(jobs)
	}
	defs := r.info.Defs
	if len(defs) == 0 {
		defs = model.BuiltinResources()
	}
	jobs = filterJobs(jobs, o)
	var b strings.Builder
	switch {
	case o.alt:
		ao := o.altOpts
		ao.largeIDs = r.info.MaxJobSequenceID > 9999999
		writeAltTable(&b, firstNonEmpty(r.info.Name, s.name), r.info.Comment, jobs, ao, env.Now())
	case !o.full:
		if len(jobs) > 0 && r.info.Comment != "" {
			b.WriteString(r.info.Comment + "\n")
		}
		w := o.wide
		writeJobTable(&b, jobs, w, o.percent, !w && r.info.MaxJobSequenceID > 9999999)
	case o.format == "json":
		root := newJSONObject()
		root.Set("timestamp", env.Now().Unix())
		root.Set("pbs_version", firstNonEmpty(r.info.Version, api.PBSVersion))
		root.Set("pbs_server", firstNonEmpty(r.info.Name, s.name))
		if len(jobs) > 0 {
			all := newJSONObject()
			for _, j := range jobs {
				all.Set(j.ID, attrsJSON(withFairshare(jobAttrs(j, defs, env.Loc), r.fairshare[j.ID])))
			}
			root.Set("Jobs", all)
		}
		b.WriteString(root.String())
	case o.format == "dsv":
		for _, j := range jobs {
			writeDSVLine(&b, "Job Id: "+j.ID, withFairshare(jobAttrs(j, defs, env.Loc), r.fairshare[j.ID]), o.delim)
		}
	default:
		for _, j := range jobs {
			writeFullBlock(&b, "Job Id: "+j.ID, withFairshare(jobAttrs(j, defs, env.Loc), r.fairshare[j.ID]), o.wide)
		}
	}
	return b.String()
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
