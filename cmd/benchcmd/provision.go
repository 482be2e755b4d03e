package benchcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// provisionToStart measures, with the cluster's real agents and an
// agent-side application provision hook (exit 1), the time from the
// provisioning success (committed with the job's move from substate 71 to
// 41 and current_aoe set) to the job running (substate 42: the agent's
// "started" report committed). Jobs alternate between two AOEs so each one
// provisions node1; they run one at a time.
func provisionToStart(ctx context.Context, c *api.Client, bin string, env []string, dir string, n int) (p50, p99 time.Duration, err error) {
	hook := filepath.Join(dir, "bench_prov.sh")
	body := "#!/bin/sh\nprintf '%s\\n' \"$STRATA_HOOK_AOE\" > \"$STRATA_HOOK_AOE_FILE\"\nexit 1\n"
	if err := os.WriteFile(hook, []byte(body), 0o755); err != nil {
		return 0, 0, err
	}
	for _, q := range []string{
		"create hook benchprov event=provision",
		"set hook benchprov alarm = 60",
		"import hook benchprov application/x-executable default " + hook,
		`set node node1 provision_enable = true, resources_available.aoe = "appA,appB"`,
	} {
		cmd := exec.Command(filepath.Join(bin, "qmgr"), "-c", q)
		cmd.Env, cmd.Dir = env, dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, 0, fmt.Errorf("qmgr -c %q: %v: %s", q, err, out)
		}
	}
	var lat []time.Duration
	for i := 0; i < n; i++ {
		aoe := []string{"appA", "appB"}[i%2]
		cmd := exec.Command(filepath.Join(bin, "qsub"), "-l", "select=1:ncpus=1:aoe="+aoe, "--", "/bin/true")
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, 0, fmt.Errorf("qsub: %v: %s", err, out)
		}
		id := strings.TrimSpace(string(out))
		var done time.Time // provisioning success seen
		t0 := time.Now()
		for {
			resp, err := c.Jobs(ctx, []string{id}, true)
			if err != nil {
				return 0, 0, err
			}
			j := resp.Jobs[0]
			now := time.Now()
			if done.IsZero() && j.Substate == model.SubPrerun {
				done = now
			}
			if j.Substate >= model.SubRunning && j.Substate != model.SubProvisioning || j.IsFinished() {
				if done.IsZero() {
					return 0, 0, fmt.Errorf("job %s: never seen between provisioning and start (substate %d, comment %q)", id, j.Substate, j.Comment)
				}
				lat = append(lat, now.Sub(done))
				break
			}
			if time.Since(t0) > 60*time.Second {
				return 0, 0, fmt.Errorf("job %s did not start after provisioning (substate %d, comment %q)", id, j.Substate, j.Comment)
			}
			time.Sleep(200 * time.Microsecond)
		}
		// The next job provisions the same host: wait until this one ends.
		for {
			resp, err := c.Jobs(ctx, []string{id}, true)
			if err != nil {
				return 0, 0, err
			}
			if resp.Jobs[0].IsFinished() {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	return lat[len(lat)/2], lat[len(lat)*99/100], nil
}
