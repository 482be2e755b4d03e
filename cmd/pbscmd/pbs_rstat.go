package pbscmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const rstatUsage = `usage: pbs_rstat [-B] [-f | -F] [-S] [reservation_id...]
       pbs_rstat --version
`

const rstatSpec optSpec = "BfFS"

// Rstat runs pbs_rstat: the short table (-S, the default), the id list
// (-B) or the full attribute list (-f/-F).
func Rstat(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	g, err := normalizeGetopt(rstatSpec, args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pbs_rstat: %s\n%s", err, rstatUsage)
		return 1 // pbs_rstat's usage errors exit 1
	}
	mode := byte('S')
	for _, f := range g.Flags {
		switch f[1] {
		case 'B':
			mode = 'B'
		case 'f', 'F':
			mode = 'f'
		}
	}
	s := newSession(env)
	client, ok := s.client.(resvServer)
	if !ok {
		fmt.Fprintln(env.Stderr, "pbs_rstat: reservations are not supported by this server connection")
		return 1
	}
	var resvs []api.ResvInfo
	code := 0
	if len(g.Operands) == 0 {
		out, err := client.Resvs(ctx, nil, false)
		if err != nil {
			return reportResvErr(env, "pbs_rstat", err, "")
		}
		resvs = out.Resvs
	}
	for _, op := range g.Operands {
		id, err := expandResvID(ctx, s, op)
		if err != nil {
			fmt.Fprintf(env.Stderr, "pbs_rstat: %v\n", err)
			code = 1
			continue
		}
		out, err := client.Resvs(ctx, []string{id}, false)
		if err != nil {
			code = reportResvErr(env, "pbs_rstat", err, "")
			continue
		}
		resvs = append(resvs, out.Resvs...)
	}
	now := env.Now()
	if env.Loc != nil {
		now = now.In(env.Loc)
	}
	switch mode {
	case 'B':
		for _, r := range resvs {
			fmt.Fprintf(env.Stdout, "Resv ID: %s\n", r.ID)
		}
	case 'f':
		for _, r := range resvs {
			writeResvFull(env.Stdout, r, env.Loc)
		}
	default:
		writeResvShort(env.Stdout, resvs, now)
	}
	return code
}

// expandResvID expands a short "R12" to "R12.<server>".
func expandResvID(ctx context.Context, s *session, op string) (string, error) {
	id, err := model.ParseJobID(op)
	if err != nil || id.Prefix == "" || id.Array {
		// PBS takes a bare number as a reservation id too (R is implied).
		if err == nil && id.Prefix == "" && !id.Array {
			id.Prefix = model.ResvPrefixAdvance
		} else {
			return "", fmt.Errorf("illegally formed reservation identifier: %s", op)
		}
	}
	if id.Server != "" {
		return id.Full(""), nil
	}
	name, err := s.serverName(ctx)
	if err != nil {
		return "", err
	}
	return id.Full(name), nil
}

// writeResvShort prints the -S table: header once, only when there is a
// reservation; id, queue and user cut without '*'.
func writeResvShort(w io.Writer, resvs []api.ResvInfo, now time.Time) {
	if len(resvs) == 0 {
		return
	}
	fmt.Fprintf(w, "%-10s %-8s %-8s %-5s %17s / Duration / %-17s\n", "Resv ID", "Queue", "User", "State", "Start", "End")
	fmt.Fprintln(w, strings.Repeat("-", 69))
	for _, r := range resvs {
		user := r.Owner
		if len(r.AuthorizedUsers) > 0 {
			user = r.AuthorizedUsers[0]
		}
		loc := now.Location()
		start := rstatTime(time.Unix(r.Start, 0).In(loc), now)
		end := rstatTime(time.Unix(r.End, 0).In(loc), now)
		fmt.Fprintf(w, "%-10s %-8s %-8s %-5s %17s / %d / %-17s\n", cut(r.ID, 10), cut(r.Queue, 8), cut(user, 8),
			model.ResvStateShort(r.State), start, r.Duration, end)
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// rstatTime is pbs_rstat's relative date: "Today 14:00", "Mon 14:00"
// within the coming week, "Mon Jun 02 14:00" within the year, else with
// the year.
func rstatTime(t, now time.Time) string {
	y1, d1 := t.Year(), t.YearDay()
	y2, d2 := now.Year(), now.YearDay()
	switch {
	case y1 == y2 && d1 == d2:
		return "Today " + t.Format("15:04")
	case y1 == y2 && d1 > d2 && d1-d2 < 7:
		return t.Format("Mon 15:04")
	case y1 == y2:
		return t.Format("Mon Jan 02 15:04")
	}
	return t.Format("Mon Jan 02 2006 15:04")
}

// writeResvFull prints -f: "Resv ID: <id>", unindented "name = value"
// lines, then an empty line.
func writeResvFull(w io.Writer, r api.ResvInfo, loc *time.Location) {
	if loc == nil {
		loc = time.Local
	}
	ts := func(u int64) string { return time.Unix(u, 0).In(loc).Format("Mon Jan 02 15:04:05 2006") }
	fmt.Fprintf(w, "Resv ID: %s\n", r.ID)
	line := func(k, v string) { fmt.Fprintf(w, "%s = %s\n", k, v) }
	line("Reserve_Name", r.Name)
	line("Reserve_Owner", r.Owner)
	line("reserve_state", model.ResvStateLong(r.State))
	line("reserve_substate", strconv.Itoa(r.Substate))
	line("reserve_start", ts(r.Start))
	line("reserve_end", ts(r.End))
	line("reserve_duration", strconv.FormatInt(r.Duration, 10))
	line("queue", r.Queue)
	keys := make([]string, 0, len(r.ResourceList))
	for k := range r.ResourceList {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line("Resource_List."+k, r.ResourceList[k])
	}
	line("schedselect", r.Select.String())
	if r.ResvNodes != "" {
		line("resv_nodes", r.ResvNodes)
	}
	line("Authorized_Users", strings.Join(r.AuthorizedUsers, ","))
	writeResvACLsAndMail(line, r.Reservation) // pbs_ralter.go
	line("server", r.Server)
	if r.RRule != "" {
		line("reserve_rrule", r.RRule)
		line("reserve_count", strconv.Itoa(r.Count))
		line("reserve_index", strconv.Itoa(r.Index))
		line("reserve_timezone", r.TZ)
	}
	if r.Comment != "" {
		line("comment", r.Comment)
	}
	line("ctime", ts(r.Ctime))
	line("mtime", ts(r.Mtime))
	fmt.Fprintln(w)
}
