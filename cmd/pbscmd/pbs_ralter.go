package pbscmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// pbs_ralter (docs/reservations.md, "Altering a reservation"): the
// options of OpenPBS's pbs_ralter, one reservation, and its output
// "pbs_ralter: <id> ALTER REQUESTED" (or CONFIRMED / DENIED / UNCONFIRMED
// with -I).

const ralterUsage = `usage: pbs_ralter [-I seconds] [-m mail_points] [-M mail_list]
                [-N reservation_name] [-R start_time] [-E end_time]
                [-U (+/-)username[,(+/-)username]...]
                [-G [(+/-)group[,(+/-)group]...]]
                [-D duration] [-l select=...]
                [-W force]
                resv_id
       pbs_ralter --version
`

const ralterSpec optSpec = "D:E:G:I:l:m:M:N:q:R:U:W:"

// resvAlterer is the part of the API pbs_ralter uses; *api.Client has it.
type resvAlterer interface {
	AlterResv(ctx context.Context, id string, req *api.ResvAlterRequest) (*api.ResvAlterResponse, error)
	Resvs(ctx context.Context, ids []string, gone bool) (*api.ResvsResponse, error)
}

var _ resvAlterer = (*api.Client)(nil)

// Ralter runs pbs_ralter.
func Ralter(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	req, wait, op, err := parseRalter(env, args)
	if err != nil {
		return reportUsage(env, "pbs_ralter", ralterUsage, err)
	}
	s := newSession(env)
	client, ok := s.client.(resvAlterer)
	if !ok {
		fmt.Fprintln(env.Stderr, "pbs_ralter: reservations are not supported by this server connection")
		return 1
	}
	id, err := expandResvID(ctx, s, op)
	if err != nil {
		if reportConnect(env.Stderr, "pbs_ralter", err) {
			return 1
		}
		fmt.Fprintf(env.Stderr, "pbs_ralter: %v\n", err)
		return 2
	}
	out, err := client.AlterResv(ctx, id, req)
	if err != nil {
		return reportResvErr(env, "pbs_ralter", err, "")
	}
	text := out.Text
	if wait > 0 && out.Pending {
		text = id + " " + waitAlter(ctx, env, client, id, time.Duration(wait)*time.Second)
	}
	fmt.Fprintf(env.Stdout, "pbs_ralter: %s\n", text)
	return 0
}

// waitAlter polls until the scheduler decided on the change, or the
// timeout passes (then, as PBS, UNCONFIRMED).
func waitAlter(ctx context.Context, env *Env, c resvAlterer, id string, timeout time.Duration) string {
	return pollResv(ctx, env, c, id, timeout, func(r api.ResvInfo) string {
		switch {
		case r.Gone != 0:
			return "DELETED"
		case r.State != model.ResvBeingAltered && r.AlterOutcome != "":
			return r.AlterOutcome
		}
		return ""
	})
}

// resvLister is what pollResv needs of the API.
type resvLister interface {
	Resvs(ctx context.Context, ids []string, gone bool) (*api.ResvsResponse, error)
}

// pollResv asks for reservation id every rsubPoll until verdict says
// something ("" is "not yet") or the timeout passes (UNCONFIRMED, as PBS
// says then).
func pollResv(ctx context.Context, env *Env, c resvLister, id string, timeout time.Duration, verdict func(api.ResvInfo) string) string {
	deadline := env.Now().Add(timeout)
	for {
		out, err := c.Resvs(ctx, []string{id}, true)
		if err == nil && len(out.Resvs) == 1 {
			if v := verdict(out.Resvs[0]); v != "" {
				return v
			}
		}
		if !env.Now().Before(deadline) {
			return "UNCONFIRMED"
		}
		select {
		case <-ctx.Done():
			return "UNCONFIRMED"
		case <-time.After(rsubPoll):
		}
	}
}

// parseRalter reads pbs_ralter's options with OpenPBS's client-side
// checks; the rules on times and permissions are the server's.
func parseRalter(env *Env, args []string) (*api.ResvAlterRequest, int64, string, error) {
	g, err := normalizeGetopt(ralterSpec, args)
	if err != nil {
		return nil, 0, "", err
	}
	if len(g.Operands) != 1 {
		return nil, 0, "", &cmdError{Code: 2, Usage: true}
	}
	req := &api.ResvAlterRequest{}
	var wait int64
	now := env.Now()
	timed := false
	for i := 0; i < len(g.Flags); i += 2 {
		f, v := g.Flags[i][1], g.Flags[i+1]
		switch f {
		case 'R', 'E':
			t, ok := parseDateTime(v, now, env.Loc)
			if !ok {
				return nil, 0, "", usageErr(2, "illegal -%c time value", f)
			}
			if f == 'R' {
				req.Start = t
			} else {
				req.End = t
			}
			timed = true
		case 'D':
			d, err := model.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, 0, "", errIllegalOpt(f)
			}
			req.Duration, timed = d, true
		case 'I':
			n, err := strconv.ParseInt(v, 0, 64)
			if err != nil || n <= 0 {
				return nil, 0, "", usageErr(2, "illegal -I time value")
			}
			wait = n
		case 'l':
			sel, ok := strings.CutPrefix(v, "select=")
			if !ok || sel == "" {
				return nil, 0, "", usageErr(2, "-l only allows for select")
			}
			req.Select = sel
		case 'm':
			req.MailPoints = &v
		case 'M':
			req.MailUsers = &v
		case 'N':
			if !validJobName(v) {
				return nil, 0, "", errIllegalOpt(f)
			}
			req.Name = &v
		case 'U':
			users := strings.Split(v, ",")
			req.Users = &users
		case 'G':
			groups := strings.Split(v, ",")
			req.Groups = &groups
		case 'q':
			if !strings.HasPrefix(v, "@") {
				return nil, 0, "", usageErr(2, "illegal -q value: format \"@server\"")
			}
		case 'W':
			if v != "force" {
				return nil, 0, "", errIllegalOpt(f)
			}
			req.Force = true
		}
	}
	if req.Force && !timed {
		return nil, 0, "", usageErr(2, "No support for requested service")
	}
	return req, wait, g.Operands[0], nil
}

// writeResvACLsAndMail prints pbs_rstat -f's Authorized_Groups,
// Authorized_Hosts, Mail_Points and Mail_Users lines (when set).
func writeResvACLsAndMail(line func(k, v string), r *model.Reservation) {
	if len(r.AuthorizedGroups) > 0 {
		line("Authorized_Groups", strings.Join(r.AuthorizedGroups, ","))
	}
	if len(r.AuthorizedHosts) > 0 {
		line("Authorized_Hosts", strings.Join(r.AuthorizedHosts, ","))
	}
	line("Mail_Points", r.ResvMailPoints())
	if r.MailUsers != "" {
		line("Mail_Users", r.MailUsers)
	}
}
