//go:build e2e

package main

// The resvsub and modifyresv hook events (docs/hooks.md): accept, reject
// with a message, and change the request, through the Python pbs module
// and through a shell hook reading the JSON event.

import (
	"strings"
	"testing"
	"time"
)

func TestResvHookEvents(t *testing.T) {
	needPython3(t)
	c := startCluster(t, 1, 2)
	// resvsub in Python with the pbs module: "bad" reservations are
	// refused, "short" ones get at least 120 s, everyone gets mail
	// points "n".
	py := c.writeHook("resvsub.py", `import pbs
e = pbs.event()
r = e.resv
if e.type != pbs.RESVSUB or r.Reserve_Owner is None or r.resvid:
    e.reject("wrong event: %s %s %s" % (e.type, r.Reserve_Owner, r.resvid))
if r.Reserve_Name == "bad":
    e.reject("no bad reservations, %s" % e.requestor)
if r.Reserve_Name == "short" and r.reserve_duration < 120:
    r.reserve_duration = 120
    r.Resource_List["select"] = "1:ncpus=2"
r.Mail_Points = "n"
e.accept()
`)
	c.must("qmgr", "-c", "create hook rsub event=resvsub")
	c.must("qmgr", "-c", "import hook rsub application/x-python default "+py)
	later := time.Now().Add(time.Hour)
	r := c.run("pbs_rsub", "-N", "bad", "-R", at(later), "-D", "60")
	if r.code != 62 || r.stdout != "" || r.stderr != "pbs_rsub: no bad reservations, root\n" {
		t.Errorf("pbs_rsub rejected by resvsub: %+v", r)
	}
	if out := c.must("pbs_rstat"); out != "" {
		t.Errorf("a rejected reservation exists:\n%s", out)
	}
	id, state := c.rsub("-I", "20", "-N", "short", "-R", at(later), "-D", "60", "-l", "select=1:ncpus=1")
	if state != "CONFIRMED" {
		t.Fatalf("pbs_rsub accepted by the hook: %s", state)
	}
	for attr, want := range map[string]string{"reserve_duration": "120", "Resource_List.select": "1:ncpus=2",
		"Mail_Points": "n", "Resource_List.walltime": "00:02:00"} {
		if got := c.resvAttr(id, attr); got != want {
			t.Errorf("after the resvsub hook: %s = %q, want %q", attr, got, want)
		}
	}

	// modifyresv as a shell hook: the end may not move, and a rename to
	// "rename" becomes "renamed". The event's resv (the request) comes
	// before resv_o (the reservation as it is).
	sh := c.writeHook("modifyresv.sh", `#!/bin/sh
[ "$STRATA_HOOK_EVENT" = modifyresv ] || { echo '{"reject_message":"wrong event"}'; exit 1; }
ev=$(cat)
case "$ev" in *'"resv_o":{'*) ;; *) echo '{"reject_message":"no resv_o"}'; exit 1;; esac
case "$ev" in *'"resv":{'*'"reserve_end":'*'"resv_o":'*) echo "{\"reject_message\":\"the end of $STRATA_HOOK_RESVID is frozen\"}"; exit 1;; esac
case "$ev" in *'"resv":{'*'"Reserve_Name":"rename"'*'"resv_o":'*) echo '{"resv":{"Reserve_Name":"renamed"}}';; esac
exit 0
`)
	c.must("qmgr", "-c", "create hook ralter event=modifyresv")
	c.must("qmgr", "-c", "import hook ralter application/x-executable default "+sh)
	r = c.ralter("-E", at(later.Add(time.Hour)), id)
	if r.code != 62 || r.stderr != "pbs_ralter: the end of "+id+" is frozen\n" {
		t.Errorf("pbs_ralter rejected by modifyresv: %+v", r)
	}
	if d := c.resvAttr(id, "reserve_duration"); d != "120" {
		t.Errorf("a rejected alteration changed the duration: %s", d)
	}
	if r := c.ralter("-N", "rename", id); r.code != 0 {
		t.Fatalf("pbs_ralter -N accepted by the hook: %+v", r)
	}
	if n := c.resvAttr(id, "Reserve_Name"); n != "renamed" {
		t.Errorf("Reserve_Name after the hook's change: %q", n)
	}
	// A hook's change is checked like the user's own request.
	bad := c.writeHook("badchange.sh", "#!/bin/sh\necho '{\"resv\":{\"Mail_Users\":\"-oQ/tmp/evil\"}}'\n")
	c.must("qmgr", "-c", "create hook badchange event=modifyresv")
	c.must("qmgr", "-c", "import hook badchange application/x-executable default "+bad)
	if r := c.ralter("-N", "x", id); r.code == 0 || !strings.Contains(r.stderr, "Mail_Users") {
		t.Errorf("a hook setting a bad Mail_Users: %+v", r)
	}
	if mu := c.resvAttr(id, "Mail_Users"); mu != "" {
		t.Errorf("Mail_Users set by a bad hook change: %q", mu)
	}
}
