package pbscmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const pbsnodesUsage = `usage:
	pbsnodes [-o|-r] [-C comment] [-s server] host host ...
	pbsnodes -l [-s server]
	pbsnodes -v vnode vnode ...
	pbsnodes -a[v][S[j][L]] [-F format] [-D delim] [-s server]
	pbsnodes [-H] [-S[j][L]] [-F format] [-D delim] host host ...
	pbsnodes --version
`

// pbsnodesSpec is pbsnodes's option grammar; the node-changing options and
// -L and the
// -D/-H/-s options are for a later release.
const (
	pbsnodesSpec        optSpec = "aC:D:F:HjlLors:Sv"
	pbsnodesUnsupported         = "DHLs"
)

type pbsnodesOpts struct {
	all, vnodes, list, summary bool
	// jobSummary is -Sj: the job-oriented summary table.
	jobSummary bool
	json       bool
	// -o / -r / -C: change the named nodes instead of showing them.
	offline, reset bool
	comment        *string
}

// Pbsnodes runs pbsnodes with args and returns the exit status (usage
// errors exit 1 here, unlike the q* commands).
func Pbsnodes(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	if len(args) == 0 {
		io.WriteString(env.Stderr, pbsnodesUsage)
		return 1
	}
	o, names, err := parsePbsnodes(args)
	if err != nil {
		return reportUsage(env, "pbsnodes", pbsnodesUsage, err)
	}
	s := newSession(env)
	if o.offline || o.reset || o.comment != nil {
		return markNodes(ctx, env, s, o, names)
	}
	resp, err := s.client.Nodes(ctx)
	if err != nil {
		if !reportConnect(env.Stderr, "pbsnodes", err) {
			fmt.Fprintf(env.Stderr, "pbsnodes: %s\n", errText(err))
		}
		return 1
	}
	defs := resp.Server.Defs
	if len(defs) == 0 {
		defs = model.BuiltinResources()
	}

	// Pick the objects to show: vnodes, or hosts made of vnodes.
	byVnode := o.vnodes || o.summary || o.list
	groups := groupNodes(resp.Vnodes, byVnode)
	code := 0
	if !o.all && len(names) > 0 {
		var picked []nodeGroup
		for _, n := range names {
			g, ok := findGroup(groups, n)
			if !ok {
				fmt.Fprintf(env.Stderr, "pbsnodes: %s %s\n", model.Message(model.PBSEUnknownNode), n)
				code = 1
				continue
			}
			picked = append(picked, g)
		}
		groups = picked
	} else if len(groups) == 0 {
		if !o.list {
			fmt.Fprintln(env.Stderr, "pbsnodes: No nodes found")
		}
		return 0
	}

	var b strings.Builder
	switch {
	case o.list:
		writeNodeList(&b, flatten(groups))
	case o.jobSummary:
		states := map[string]string{}
		if jr, err := s.client.Jobs(ctx, nil, false); err == nil {
			for _, j := range jr.Jobs {
				states[j.ID] = j.State
			}
		}
		writeNodeJobSummary(&b, flatten(groups), defs, firstNonEmpty(resp.Server.Name, s.name), states)
	case o.summary:
		writeNodeSummary(&b, flatten(groups))
	case o.json:
		root := newJSONObject()
		root.Set("timestamp", env.Now().Unix())
		root.Set("pbs_version", firstNonEmpty(resp.Server.Version, api.PBSVersion))
		root.Set("pbs_server", firstNonEmpty(resp.Server.Name, s.name))
		nodes := newJSONObject()
		for _, g := range groups {
			nodes.Set(g.name, nodeJSON(hostAttrs(g.vnodes, defs)))
		}
		root.Set("nodes", nodes)
		b.WriteString(root.String())
	default:
		for _, g := range groups {
			writeNodeLong(&b, g.name, hostAttrs(g.vnodes, defs), env.Loc)
		}
	}
	io.WriteString(env.Stdout, b.String())
	return code
}

// errText is a server error's text.
func errText(err error) string {
	if pe, ok := model.AsPBSError(err); ok {
		return pe.Msg
	}
	return err.Error()
}

func parsePbsnodes(args []string) (pbsnodesOpts, []string, error) {
	var o pbsnodesOpts
	var names []string
	err := parseOptions("pbsnodes", pbsnodesSpec, "", args, func(c *options, g getoptArgs) error {
		names = g.Operands
		for _, f := range presentFlags(c, pbsnodesSpec) {
			if strings.IndexByte(pbsnodesUnsupported, f) >= 0 {
				return failErr(1, "option -%c is not supported by this Strata release yet", f)
			}
		}
		o.all = c.Bool("a")
		o.vnodes = c.Bool("v")
		o.list = c.Bool("l")
		o.summary = c.Bool("S")
		o.jobSummary = c.Bool("j")
		if o.jobSummary && !o.summary {
			return usageErr(1, "-j needs -S")
		}
		o.offline, o.reset = c.Bool("o"), c.Bool("r")
		if o.offline && o.reset {
			return &cmdError{Code: 1, Usage: true}
		}
		if c.IsSet("C") {
			text := c.String("C")
			if len(text) > 79 {
				text = text[:79] // the client cuts comments, as OpenPBS does
			}
			o.comment = &text
		}
		switch f := c.String("F"); f {
		case "":
		case "json":
			o.json = true
		default:
			return usageErr(1, "invalid -F value %s", f)
		}
		return nil
	})
	if err != nil {
		// pbsnodes's usage errors exit 1.
		if ge, ok := err.(*getoptError); ok {
			return o, nil, usageErr(1, "%s", ge.Msg)
		}
		return o, nil, err
	}
	if (o.offline || o.reset || o.comment != nil) && len(names) == 0 {
		return o, nil, &cmdError{Code: 1, Usage: true}
	}
	if !o.all && !o.list && len(names) == 0 {
		return o, nil, &cmdError{Code: 1, Usage: true}
	}
	return o, names, nil
}

// nodeGroup is what one block of output describes: a vnode, or a host with
// its vnodes.
type nodeGroup struct {
	name   string
	vnodes []*model.Vnode
}

// groupNodes groups vnodes by host (first-seen order) or keeps them one by
// one.
func groupNodes(vnodes []*model.Vnode, byVnode bool) []nodeGroup {
	var out []nodeGroup
	index := map[string]int{}
	for _, v := range vnodes {
		name := v.Name
		if !byVnode && v.Host != "" {
			name = v.Host
		}
		if i, ok := index[name]; ok {
			out[i].vnodes = append(out[i].vnodes, v)
			continue
		}
		index[name] = len(out)
		out = append(out, nodeGroup{name: name, vnodes: []*model.Vnode{v}})
	}
	return out
}

func findGroup(groups []nodeGroup, name string) (nodeGroup, bool) {
	for _, g := range groups {
		if g.name == name {
			return g, true
		}
	}
	return nodeGroup{}, false
}

func flatten(groups []nodeGroup) []*model.Vnode {
	var out []*model.Vnode
	for _, g := range groups {
		out = append(out, g.vnodes...)
	}
	return out
}

// markNodes is pbsnodes -o/-r/-C: each name is a host (all its vnodes) or
// a vnode; each is marked on its own so one failure does not stop the
// others, and a failure prints "Error marking node <n> - <msg>".
func markNodes(ctx context.Context, env *Env, s *session, o pbsnodesOpts, names []string) int {
	resp, err := s.client.Nodes(ctx)
	if err != nil {
		if !reportConnect(env.Stderr, "pbsnodes", err) {
			fmt.Fprintf(env.Stderr, "pbsnodes: %s\n", errText(err))
		}
		return 1
	}
	code := 0
	for _, n := range names {
		var vnodes []string
		for _, v := range resp.Vnodes {
			if v.Name == n || v.Host == n {
				vnodes = append(vnodes, v.Name)
			}
		}
		req := &api.MarkNodesRequest{Nodes: vnodes, Comment: o.comment}
		if o.offline || o.reset {
			off := o.offline
			req.Offline = &off
		}
		if len(vnodes) == 0 {
			err = model.Errorf(model.PBSEUnknownNode, "")
		} else {
			err = s.client.MarkNodes(ctx, req)
		}
		if err != nil {
			if reportConnect(env.Stderr, "pbsnodes", err) {
				return 1
			}
			fmt.Fprintf(env.Stderr, "Error marking node %s - %s\n", n, errText(err))
			code = 1
		}
	}
	return code
}
