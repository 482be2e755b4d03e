package pbscmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// qstatServer answers -Q, -q and -B (with -f and -F json for -Q and -B).
func qstatServer(ctx context.Context, env *Env, s *session, o qstatOpts, operands []string) int {
	info, err := s.client.Server(ctx)
	if err != nil {
		if c := qstatError(env, err, ""); c >= 0 {
			return c
		}
		return 1
	}
	code := 0
	var b strings.Builder
	if o.server {
		switch {
		case o.format == "json":
			b.WriteString(serverJSON(env, info, "Server", map[string][]attr{info.Name: serverAttrs(*info)}, []string{info.Name}))
		case o.full:
			writeFullBlock(&b, "Server: "+info.Name, serverAttrs(*info), o.wide)
		default:
			writeServerTable(&b, *info)
		}
		io.WriteString(env.Stdout, b.String())
		return 0
	}
	queues := info.Queues
	if len(operands) > 0 {
		queues = nil
		for _, op := range operands {
			name, _, _ := strings.Cut(op, "@")
			found := false
			for _, q := range info.Queues {
				if q.Name == name {
					queues, found = append(queues, q), true
				}
			}
			if !found && name != "" {
				fmt.Fprintf(env.Stderr, "qstat: %s %s\n", model.Message(model.PBSEUnknownQueue), name)
				code = model.Err(model.PBSEUnknownQueue).ExitCode()
			}
		}
	}
	switch {
	case o.queueLimits:
		writeQueueLimits(&b, info.Name, queues)
	case o.format == "json":
		attrs, names := map[string][]attr{}, []string{}
		for _, q := range queues {
			attrs[q.Name], names = queueAttrs(q), append(names, q.Name)
		}
		b.WriteString(serverJSON(env, info, "Queue", attrs, names))
	case o.full:
		for _, q := range queues {
			writeFullBlock(&b, "Queue: "+q.Name, queueAttrs(q), o.wide)
		}
	default:
		writeQueueTable(&b, queues)
	}
	io.WriteString(env.Stdout, b.String())
	return code
}

// serverJSON is -F json for -Q and -B.
func serverJSON(env *Env, info *api.ServerInfo, key string, attrs map[string][]attr, names []string) string {
	root := newJSONObject()
	root.Set("timestamp", env.Now().Unix())
	root.Set("pbs_version", firstNonEmpty(info.Version, api.PBSVersion))
	root.Set("pbs_server", info.Name)
	objs := newJSONObject()
	for _, n := range names {
		objs.Set(n, attrsJSON(attrs[n]))
	}
	root.Set(key, objs)
	return root.String()
}

// filterJobs applies -i, -r, -H and -u.
func filterJobs(jobs []*model.Job, o qstatOpts) []*model.Job {
	if o.states == "" && len(o.users) == 0 {
		return jobs
	}
	var out []*model.Job
	for _, j := range jobs {
		if o.states != "" && !strings.Contains(o.states, j.State) {
			continue
		}
		if len(o.users) > 0 {
			owner, _, _ := strings.Cut(j.Owner, "@")
			ok := false
			for _, u := range o.users {
				ok = ok || u == owner
			}
			if !ok {
				continue
			}
		}
		out = append(out, j)
	}
	return out
}
