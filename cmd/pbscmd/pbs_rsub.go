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

// resvServer is the part of the API the reservation commands use;
// *api.Client has it.
type resvServer interface {
	SubmitResv(ctx context.Context, req *api.ResvSubmitRequest, retryFor time.Duration) (string, error)
	Resvs(ctx context.Context, ids []string, gone bool) (*api.ResvsResponse, error)
	DeleteResv(ctx context.Context, id string) error
}

var _ resvServer = (*api.Client)(nil)

const rsubUsage = `usage: pbs_rsub [-I seconds] [-m mail_points] [-M mail_list]
                [-N reservation_name] [-R start_time] [-E end_time] [-D duration]
                [-q destination] [-r rrule] [-U user_list] [-G group_list]
                [-H auth_host_list] [-l resource_list]
                [-W qmove=jobid] [-W delete_idle_time=duration]
       pbs_rsub --hosts host [host ...] -R start_time -E end_time
       pbs_rsub --job jobid
       pbs_rsub --version
`

const rsubSpec optSpec = "D:E:G:H:I:l:m:M:N:q:r:R:U:W:"

// rsubPoll is how often pbs_rsub -I asks whether the scheduler decided.
const rsubPoll = 200 * time.Millisecond

// Rsub runs pbs_rsub: it prints "R<n>.<server> UNCONFIRMED", or with -I
// waits for the scheduler's verdict.
func Rsub(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	args, hosts, job := splitHostsOpt(args) // pbs_rsub_maint.go
	req, wait, err := parseRsub(env, args)
	if err != nil {
		return reportUsage(env, "pbs_rsub", rsubUsage, err)
	}
	req.MaintHosts, req.Job = hosts, job
	s := newSession(env)
	client, ok := s.client.(resvServer)
	if !ok {
		fmt.Fprintln(env.Stderr, "pbs_rsub: reservations are not supported by this server connection")
		return 1
	}
	id, err := client.SubmitResv(ctx, req, 30*time.Second)
	if err != nil {
		return reportResvErr(env, "pbs_rsub", err, "")
	}
	if wait == 0 {
		fmt.Fprintf(env.Stdout, "%s %s\n", id, submittedState(req))
		return 0
	}
	state := waitResv(ctx, env, client, id, time.Duration(abs(wait))*time.Second)
	if state == "UNCONFIRMED" && wait < 0 {
		// A negative -I deletes a reservation still unconfirmed at the
		// deadline.
		if err := client.DeleteResv(ctx, id); err == nil {
			state = "DELETED"
		}
	}
	fmt.Fprintf(env.Stdout, "%s %s\n", id, state)
	return 0
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// waitResv polls until the reservation is confirmed or denied, or the
// timeout passes.
func waitResv(ctx context.Context, env *Env, c resvServer, id string, timeout time.Duration) string {
	return pollResv(ctx, env, c, id, timeout, func(r api.ResvInfo) string {
		switch {
		case r.Denied:
			return "DENIED"
		case r.Gone != 0:
			return "DELETED"
		case r.State != model.ResvUnconfirmed:
			return "CONFIRMED"
		}
		return ""
	})
}

// parseRsub reads pbs_rsub's options into a request. Times are read in
// the local zone like qsub -a; durations as seconds or [[HH:]MM:]SS.
func parseRsub(env *Env, args []string) (*api.ResvSubmitRequest, int64, error) {
	g, err := normalizeGetopt(rsubSpec, args)
	if err != nil {
		return nil, 0, err
	}
	if len(g.Operands) > 0 {
		return nil, 0, &cmdError{Code: 2, Usage: true}
	}
	req := &api.ResvSubmitRequest{Resources: map[string]string{}}
	var wait int64
	now := env.Now()
	for i := 0; i < len(g.Flags); i += 2 {
		f, v := g.Flags[i][1], g.Flags[i+1]
		switch f {
		case 'R', 'E':
			t, ok := parseDateTime(v, now, env.Loc)
			if !ok {
				return nil, 0, errIllegalOpt(f)
			}
			if f == 'R' {
				req.Start = t
			} else {
				req.End = t
			}
		case 'D':
			d, err := model.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, 0, errIllegalOpt(f)
			}
			req.Duration = d
		case 'I':
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, 0, errIllegalOpt(f)
			}
			wait = n
		case 'l':
			for _, kv := range splitResources(v) {
				k, val, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return nil, 0, errIllegalOpt(f)
				}
				req.Resources[k] = val
			}
		case 'N':
			if !validJobName(v) {
				return nil, 0, errIllegalOpt(f)
			}
			req.Name = v
		case 'U':
			req.Users = append(req.Users, strings.Split(v, ",")...)
		case 'r':
			req.RRule = v
			req.TZ = env.getenv("PBS_TZID")
		case 'G':
			req.Groups = append(req.Groups, strings.Split(v, ",")...)
		case 'H':
			req.Hosts = append(req.Hosts, strings.Split(v, ",")...)
		case 'm':
			req.MailPoints = v
		case 'M':
			req.MailUsers = v
		case 'W':
			if err := parseRsubW(req, v); err != nil { // pbs_rsub_maint.go
				return nil, 0, err
			}
		case 'q':
			// Accepted so scripts work (docs/reservations.md).
		}
	}
	// The time rules (two of -R, -E, -D) are the server's, so that the
	// error is the same whatever the client.
	if host, err := env.Hostname(); err == nil {
		req.SubmitHost = host
	}
	token, err := newToken()
	if err != nil {
		return nil, 0, err
	}
	req.Token = token
	return req, wait, nil
}

// splitResources splits a -l value at the commas between resources, not
// at those inside a value (a select never has commas; aoe lists do not
// appear in requests).
func splitResources(v string) []string {
	return strings.Split(v, ",")
}

// reportResvErr prints a server refusal as "<cmd>: <text>[ <id>]" and
// returns the exit status.
func reportResvErr(env *Env, cmd string, err error, id string) int {
	if reportConnect(env.Stderr, cmd, err) {
		return 1
	}
	if pe, ok := model.AsPBSError(err); ok {
		if id != "" {
			fmt.Fprintf(env.Stderr, "%s: %s %s\n", cmd, pe.Msg, id)
		} else {
			fmt.Fprintf(env.Stderr, "%s: %s\n", cmd, strings.TrimRight(pe.Msg, " "))
		}
		return pe.ExitCode()
	}
	fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, err)
	return 1
}
