package pbscmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

const tracejobUsage = "usage: tracejob [-a|s|l|m|v] [-w size] [-p path] [-n days] [-f filter] job_identifier...\n       tracejob --version\n"

// tracejobLayout is tracejob's time stamp.
const tracejobLayout = "01/02/2006 15:04:05"

// Tracejob runs tracejob: the life of each job from the event history the
// server keeps in the job record (OpenPBS reads its log files instead; see
// docs/compatibility.md).
func Tracejob(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	var operands []string
	err := parseOptions("tracejob", tracejobSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		return nil
	})
	if err == nil && len(operands) == 0 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, "tracejob", tracejobUsage, err)
	}
	var b strings.Builder
	code := forEachJob(ctx, env, "tracejob", operands, func(s *session, id string) error {
		resp, err := s.client.Jobs(ctx, []string{id}, true)
		if err != nil {
			return err
		}
		for _, j := range resp.Jobs {
			writeTrace(&b, j.Job, env.Loc)
			if j.Fairshare != "" {
				// Not history: where the job stands now (pbsfs.go).
				loc := env.Loc
				if loc == nil {
					loc = time.Local
				}
				fmt.Fprintf(&b, "%s  L    Job queued behind more deserving fairshare entities: %s\n",
					env.Now().In(loc).Format(tracejobLayout), j.Fairshare)
			}
		}
		return nil
	})
	fmt.Fprint(env.Stdout, b.String())
	return code
}

// writeTrace prints one job's events as tracejob does: "Job: <id>", an
// empty line, then "MM/DD/YYYY HH:MM:SS  S    text" lines.
func writeTrace(b *strings.Builder, j *model.Job, loc *time.Location) {
	if loc == nil {
		loc = time.Local
	}
	fmt.Fprintf(b, "\nJob: %s\n\n", j.ID)
	for _, ev := range j.History {
		fmt.Fprintf(b, "%s  S    %s\n", time.Unix(ev.Time, 0).In(loc).Format(tracejobLayout), ev.Text)
	}
}
