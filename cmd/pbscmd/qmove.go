package pbscmd

import (
	"context"
	"strings"

	"github.com/strata-hpc/strata/server/api"
)

const (
	qmoveUsage  = "usage: qmove destination job_identifier...\n       qmove --version\n"
	qrerunUsage = "usage: qrerun [-W force] job_identifier...\n       qrerun --version\n"
	qrunUsage   = "usage: qrun [-a] [-H vnode_specification ] job_identifier...\n       qrun --version\n"
)

// Qmove runs qmove: move each job that has not started to destination.
func Qmove(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	var operands []string
	err := parseOptions("qmove", "", "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		return nil
	})
	if err == nil && len(operands) < 2 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, "qmove", qmoveUsage, err)
	}
	dest := operands[0]
	return forEachJob(ctx, env, "qmove", operands[1:], func(s *session, id string) error {
		return s.client.Move(ctx, id, api.MoveRequest{Queue: dest})
	})
}

// Qrerun runs qrerun: requeue each running job (operators only).
func Qrerun(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	var req api.RerunRequest
	var operands []string
	err := parseOptions("qrerun", qrerunSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		if c.IsSet("W") {
			if c.String("W") != "force" {
				return errIllegalOpt('W')
			}
			req.Force = true
		}
		return nil
	})
	if err == nil && len(operands) == 0 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, "qrerun", qrerunUsage, err)
	}
	return forEachJob(ctx, env, "qrerun", operands, func(s *session, id string) error {
		return s.client.Rerun(ctx, id, req)
	})
}

// Qrun runs qrun: start each job now (operators only), on the vnodes of -H
// if given.
func Qrun(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	var req api.RunRequest
	var operands []string
	err := parseOptions("qrun", qrunSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		if c.IsSet("H") {
			vn, ok := parseRunVnodes(c.String("H"))
			if !ok {
				return errIllegalOpt('H')
			}
			req.Vnodes = vn
		}
		return nil
	})
	if err == nil && len(operands) == 0 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, "qrun", qrunUsage, err)
	}
	return forEachJob(ctx, env, "qrun", operands, func(s *session, id string) error {
		return s.client.Run(ctx, id, req)
	})
}

// parseRunVnodes reads -H "vn1+vn2" or "(vn1:ncpus=2)+(vn2)": the vnode
// names, one per chunk copy.
func parseRunVnodes(spec string) ([]string, bool) {
	var out []string
	for _, part := range strings.Split(spec, "+") {
		part = strings.TrimSuffix(strings.TrimPrefix(part, "("), ")")
		name, _, _ := strings.Cut(part, ":")
		if name == "" {
			return nil, false
		}
		out = append(out, name)
	}
	return out, len(out) > 0
}
