package pbscmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// altWidths are the column widths of qstat's alternate format (-a and
// friends), from OpenPBS's qstat.c.
type altWidths struct {
	id, user, queue, name, sess, nds, tsk int
	commentCut                            int // -s: comments longer than this are cut
}

var (
	altNormal = altWidths{id: 15, user: 8, queue: 8, name: 10, sess: 6, nds: 3, tsk: 3, commentCut: 74}
	altWide   = altWidths{id: 30, user: 15, queue: 15, name: 15, sess: 8, nds: 4, tsk: 5, commentCut: 114}
)

// altOpts are the switches of the alternate format.
type altOpts struct {
	wide, nodes, comments, oneLine, estimate bool
	sizeUnit                                 byte // 0, 'G' or 'M'
	largeIDs                                 bool // max_job_sequence_id > 9,999,999
}

// writeAltTable writes the alternate format: an empty line, "<server>: "
// with the server comment, two header lines, the dash line and one row per
// job (with -n/-s lines). Nothing is written when there are no jobs.
func writeAltTable(b *strings.Builder, server, comment string, jobs []*model.Job, o altOpts, now time.Time) {
	if len(jobs) == 0 {
		return
	}
	w := altNormal
	if o.wide {
		w = altWide
	} else if o.largeIDs {
		w.id = 20
	}
	fmt.Fprintf(b, "\n%s: %s\n", server, comment)
	elap1, elap2 := "Elap", "Time"
	if o.estimate {
		elap1, elap2 = "Est", "Start"
	}
	lead := w.id + w.user + w.queue + w.name + w.sess + w.nds + w.tsk + 7
	fmt.Fprintf(b, "%s%-6s %-5s   %s\n", strings.Repeat(" ", lead), "Req'd", "Req'd", elap1)
	fmt.Fprintf(b, "%-*s %-*s %-*s %-*s %*s %*s %*s %6s %-5s %s %s\n",
		w.id, "Job ID", w.user, "Username", w.queue, "Queue", w.name, "Jobname",
		w.sess, "SessID", w.nds, "NDS", w.tsk, "TSK", "Memory", "Time", "S", elap2)
	dash := func(n int) string { return strings.Repeat("-", n) }
	fmt.Fprintf(b, "%s %s %s %s %s %s %s %s %s - %s\n", dash(w.id), dash(w.user), dash(w.queue), dash(w.name),
		dash(w.sess), dash(w.nds), dash(w.tsk), dash(6), dash(5), dash(5))
	for _, j := range jobs {
		row := altRow(j, w, o, now)
		var extra []string
		if o.nodes && len(j.Exec) > 0 {
			extra = append(extra, shortHosts(j.ExecHost()))
		}
		if o.comments && j.Comment != "" {
			c := j.Comment
			if len(c) > w.commentCut {
				c = c[:w.commentCut-3] + "..."
			}
			extra = append(extra, c)
		}
		if o.oneLine {
			b.WriteString(row)
			for _, e := range extra {
				b.WriteString(" " + e)
			}
			b.WriteString("\n")
			continue
		}
		b.WriteString(row + "\n")
		for i, e := range extra {
			if o.nodes && i == 0 && len(j.Exec) > 0 {
				writeWrappedHosts(b, e)
				continue
			}
			b.WriteString("   " + e + "\n")
		}
	}
}

// altRow formats one job's row of the alternate format.
func altRow(j *model.Job, w altWidths, o altOpts, now time.Time) string {
	none := " -- "
	or := func(v string) string {
		if v == "" {
			return none
		}
		return v
	}
	user, _, _ := strings.Cut(j.Owner, "@")
	queue, _, _ := strings.Cut(j.Queue, "@")
	sess := none
	if j.SessionID != 0 {
		sess = strconv.Itoa(j.SessionID)
	}
	reqTime := j.ResourceList["walltime"]
	if reqTime == "" {
		reqTime = j.ResourceList["cput"]
	}
	elap := ""
	switch {
	case o.estimate:
		elap = estStart(j, now)
	case j.Used["walltime"] != "":
		elap = j.Used["walltime"]
	case j.State == model.StateRunning && j.Stime > 0:
		elap = model.FormatDuration(now.Unix() - j.Stime)
	}
	id := truncMark(model.ShortJobID(j.ID), w.id)
	return fmt.Sprintf("%-*s %-*s %-*s %-*s %*s %*s %*s %6s %5s %1s %5s",
		w.id, id, w.user, truncMark(user, w.user), w.queue, truncMark(queue, w.queue),
		w.name, truncMark(j.Name, w.name), w.sess, truncMark(sess, w.sess),
		w.nds, or(j.ResourceList["nodect"]), w.tsk, or(j.ResourceList["ncpus"]),
		or(altSize(j.ResourceList["mem"], o.sizeUnit)), first5(or(reqTime)), j.State, first5(or(elap)))
}

// estStart is -T's column. The estimate comes from the scheduler's
// calendar; a job without one shows "--".
func estStart(j *model.Job, now time.Time) string {
	if j.IsRunning() {
		return ""
	}
	return formatEstStart(j.EstStart(), now)
}

func first5(s string) string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

// altSize shows a size in at most 4 digits ("2gb", "512mb"), or in
// gigabytes (-G) or megawords (-M).
func altSize(v string, unit byte) string {
	if v == "" {
		return ""
	}
	n, err := model.ParseSize(v)
	if err != nil {
		return v
	}
	switch unit {
	case 'G':
		return strconv.FormatInt((n+(1<<30)-1)>>30, 10) + "gb"
	case 'M':
		return strconv.FormatInt((n/8+(1<<20)-1)>>20, 10) + "mw"
	}
	if len(v) <= 6 {
		return v
	}
	val, suffixes := (n+1023)>>10, []string{"kb", "mb", "gb", "tb", "pb"}
	i := 0
	for val >= 10000 && i < len(suffixes)-1 {
		val, i = (val+1023)>>10, i+1
	}
	return strconv.FormatInt(val, 10) + suffixes[i]
}

// shortHosts cuts each host of exec_host at its first dot.
func shortHosts(execHost string) string {
	parts := strings.Split(execHost, "+")
	for i, p := range parts {
		host, rest, _ := strings.Cut(p, "/")
		if d := strings.IndexByte(host, '.'); d >= 0 {
			host = host[:d]
		}
		parts[i] = host + "/" + rest
	}
	return strings.Join(parts, "+")
}

// writeWrappedHosts writes -n's line: indented 3, wrapped before column 78
// only at '+'.
func writeWrappedHosts(b *strings.Builder, hosts string) {
	line := "   "
	for i, p := range strings.Split(hosts, "+") {
		piece := p
		if i > 0 {
			piece = "+" + p
		}
		if len(line)+len(piece) >= foldLimit && len(line) > 3 {
			b.WriteString(line + "\n")
			line = "   " + p
			continue
		}
		line += piece
	}
	b.WriteString(line + "\n")
}
