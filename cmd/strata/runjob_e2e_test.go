//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestRunjobRejectionFreesItsBooking: a job a runjob hook rejects gives
// back what the cycle booked for it, so the job behind it runs (before,
// the rejected job took the only cpu in every cycle's plan and the other
// job waited for ever behind a job that never ran). With an AOE, the same
// held a provisioning booking: "Provision conflict with existing
// job/reservation".
func TestRunjobRejectionFreesItsBooking(t *testing.T) {
	c := startCluster(t, 1, 1)
	sh := c.writeHook("norun.sh", "#!/bin/sh\nif grep -q -e '\"name\":\"nope\"' -e '\"Job_Name\":\"nope\"'; then echo '{\"reject_message\":\"nope is not allowed\"}'; exit 1; fi\nexit 0\n")
	c.must("qmgr", "-c", "create hook norun event=runjob; import hook norun application/x-executable default "+sh)
	c.must("qmgr", "-c", "set server scheduling = false")
	nope := c.submit("true\n", "-N", "nope", "-p", "10")
	ok := c.submit("true\n", "-N", "fine")
	c.must("qmgr", "-c", "set server scheduling = true")
	c.waitState(ok, 20*time.Second, "F")
	// While "fine" ran, a cycle may have said why nope could not run then
	// (no free cpu); once the cpu is free, every cycle tries nope again and
	// the hook's rejection is its comment.
	waitFor(t, 20*time.Second, "the rejection as the queued job's comment", func() bool {
		j := c.job(nope)
		return j["job_state"] == "Q" && strings.Contains(str(j["comment"]), "nope is not allowed")
	})
}
