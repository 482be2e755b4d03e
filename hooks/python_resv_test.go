package hooks

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// The pbs module's reservation object (resvsub, modifyresv).

func resvEvent(typ string) Event {
	r := &model.Reservation{ID: "R5.srv", Name: "w", Owner: "alice@login1", Start: 1000, End: 4600, Duration: 3600,
		ResourceList: map[string]string{"select": "1:ncpus=2", "walltime": "01:00:00"}, AuthorizedUsers: []string{"alice@login1"}}
	ev := Event{Type: typ, Requestor: "alice", RequestorHost: "login1", Defs: testDefs}
	if typ == "modifyresv" {
		ev.Resv = map[string]any{"resvid": r.ID, "reserve_end": int64(9000)}
		ev.ResvO = ResvAttrs(r)
	} else {
		r.ID = ""
		ev.Resv = ResvAttrs(r)
	}
	return ev
}

func TestPythonResvsubChangesAndRejects(t *testing.T) {
	needPython(t)
	h := pyHook("rs", `import pbs
e = pbs.event()
r = e.resv
assert e.type == pbs.RESVSUB and r.reserve_duration == 3600 and r.Resource_List["select"] is not None
r.Reserve_Name = "renamed"
r.Authorized_Groups = ["staff", "ops"]
r.reserve_end = 8200
r.Resource_List["select"] = "2:ncpus=1"
`)
	out := run(t, h, resvEvent("resvsub"))
	want := map[string]string{"Reserve_Name": "renamed", "Authorized_Groups": "staff,ops", "reserve_end": "8200",
		"Resource_List.select": "2:ncpus=1"}
	if !out.Accept || len(out.Changes) != len(want) {
		t.Fatalf("resvsub changes: %+v", out)
	}
	for k, v := range want {
		if out.Changes[k] != v {
			t.Errorf("change %s = %q, want %q", k, out.Changes[k], v)
		}
	}
	// What the event does not allow is refused in the hook.
	h = pyHook("rs", "import pbs\npbs.event().resv.reserve_state = 5\n")
	if out := run(t, h, resvEvent("resvsub")); out.Accept {
		t.Errorf("setting reserve_state was accepted: %+v", out)
	}
	h = pyHook("rs", "import pbs\npbs.event().resv.reserve_start = -4\n")
	if out := run(t, h, resvEvent("resvsub")); out.Accept {
		t.Errorf("a negative start was accepted: %+v", out)
	}
}

func TestPythonModifyresvSeesRequestAndReservation(t *testing.T) {
	needPython(t)
	h := pyHook("mr", `import pbs
e = pbs.event()
if e.type != pbs.MODIFYRESV or str(e.resv) != "R5.srv" or e.resv_o.reserve_end != 4600:
    e.reject("bad event")
if e.resv.reserve_end > e.resv_o.reserve_end + 3600:
    e.reject("at most one more hour for %s" % e.resv_o.Reserve_Owner)
`)
	out := run(t, h, resvEvent("modifyresv"))
	if out.Accept || out.Message != "at most one more hour for alice@login1" {
		t.Errorf("modifyresv rejection: %+v", out)
	}
	h = pyHook("mr", "import pbs\npbs.event().resv_o.Reserve_Name = 'x'\n")
	if out := run(t, h, resvEvent("modifyresv")); out.Accept {
		t.Errorf("changing resv_o was accepted: %+v", out)
	}
}
