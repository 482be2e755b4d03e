package mom

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/servertest"
)

// simJob is a submission with the given job variables.
func simJob(vars ...model.EnvVar) *api.SubmitRequest {
	var tok [12]byte
	rand.Read(tok[:])
	return &api.SubmitRequest{
		Token: hex.EncodeToString(tok[:]), Name: "sim", Script: "#!/bin/sh\ntrue\n", Workdir: "/tmp", SubmitHost: "localhost",
		Env:       append([]model.EnvVar{{Name: "PBS_O_WORKDIR", Value: "/tmp"}}, vars...),
		Resources: map[string]string{"select": "1:ncpus=1"},
	}
}

// startSimulator runs a simulator of n hosts sim-NNNNN against a real
// server until the test ends, and waits until the server shows them free.
func startSimulator(t *testing.T, n int, opts SimOptions) *servertest.Server {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the server's Unix socket identifies callers; root may submit and manage")
	}
	s := servertest.Start(t, nil)
	cfg := DefaultConfig()
	cfg.Host, cfg.Spool, cfg.Server = "sim", t.TempDir(), s.Config.APIAddr
	cfg.Resources = map[string]string{"ncpus": "2", "mem": "4gb"}
	client := s.Simulator(t, "sim")
	cert, key := pki.SimulatorFiles(filepath.Join(s.Dir, "tls"), "sim")
	cfg.TLS = pki.Files{CA: filepath.Join(s.Dir, "tls", pki.CAFile), Cert: cert, Key: key}
	opts.Hosts = n
	if opts.Speed == 0 {
		opts.Speed = 1
	}
	sim, err := NewSimulator(cfg, opts, client, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { sim.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, 30*time.Second, "simulated hosts free", func() bool {
		resp, err := s.Root.Nodes(context.Background())
		if err != nil || len(resp.Vnodes) != n {
			return false
		}
		for _, v := range resp.Vnodes {
			if v.State&model.Unavailable != 0 {
				return false
			}
		}
		return true
	})
	if err := s.Root.Manage(context.Background(), &model.ManagerRequest{Verb: "set", Object: "server",
		Attrs: []model.ManagerAttr{{Name: "scheduling", Op: "=", Value: "true"}}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSimulatorRunsJobs: simulated hosts register, are scheduled and run
// jobs virtually for STRATA_SIM_RUNTIME or the walltime (scaled by the
// speed), with STRATA_SIM_EXIT as the exit status; qdel of a running
// simulated job ends it as killed.
func TestSimulatorRunsJobs(t *testing.T) {
	s := startSimulator(t, 20, SimOptions{Speed: 10})
	ctx := context.Background()
	var ids []string
	submit := func(r *api.SubmitRequest) string {
		id, err := s.Root.Submit(ctx, r, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		return id
	}
	for range 30 {
		submit(simJob(model.EnvVar{Name: SimRuntimeVar, Value: "2s"})) // 0.2 s at speed 10
	}
	failing := submit(simJob(model.EnvVar{Name: SimRuntimeVar, Value: "1"}, model.EnvVar{Name: SimExitVar, Value: "3"}))
	wall := simJob()
	wall.Resources["walltime"] = "00:00:03"
	byWalltime := submit(wall)
	long := simJob(model.EnvVar{Name: SimRuntimeVar, Value: "1h"})
	longID, err := s.Root.Submit(ctx, long, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	jobs := func(ids ...string) map[string]*api.JobStatus {
		resp, err := s.Root.Jobs(ctx, ids, true)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*api.JobStatus{}
		for _, j := range resp.Jobs {
			out[j.ID] = j
		}
		return out
	}
	waitFor(t, 30*time.Second, "every short job finished", func() bool {
		for _, j := range jobs(ids...) {
			if j.State != model.StateFinished {
				return false
			}
		}
		return true
	})
	js := jobs(ids...)
	for _, id := range ids {
		j := js[id]
		want := 0
		if id == failing {
			want = 3
		}
		if j.Exit == nil || *j.Exit != want || j.Used["walltime"] == "" || len(j.Exec) == 0 {
			t.Fatalf("job %s: exit %v, resources_used %v, exec_vnode %v; want exit %d", id, j.Exit, j.Used, j.Exec, want)
		}
	}
	// 3 s of walltime at speed 10 is 0.3 s of real time: its reported
	// walltime is the virtual one.
	if w := js[byWalltime].Used["walltime"]; w < "00:00:02" {
		t.Fatalf("walltime job used %s, want about 00:00:03", w)
	}
	waitFor(t, 10*time.Second, "the long job running", func() bool { return jobs(longID)[longID].Substate == model.SubRunning })
	if err := s.Root.Delete(ctx, longID, api.DeleteRequest{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the deleted job finished", func() bool { return jobs(longID)[longID].State == model.StateFinished })
	if j := jobs(longID)[longID]; j.Exit == nil || *j.Exit != 271 {
		t.Fatalf("deleted simulated job exit %v, want 271 (SIGTERM)", j.Exit)
	}
}

// provisioningSetup makes a provision hook (mode agent, the default: the
// simulator answers it) and lets sim-00001 be provisioned with app1.
func provisioningSetup(t *testing.T, s *servertest.Server) {
	t.Helper()
	ctx := context.Background()
	for _, req := range []*model.ManagerRequest{
		{Verb: "create", Object: "hook", Name: "prov", Attrs: []model.ManagerAttr{{Name: "event", Op: "=", Value: "provision"}}},
		{Verb: "import", Object: "hook", Name: "prov", ContentType: "application/x-executable", Content: "#!/bin/sh\nexit 1\n"},
		{Verb: "set", Object: "node", Name: "sim-00001", Attrs: []model.ManagerAttr{{Name: "provision_enable", Op: "=", Value: "true"}, {Name: "resources_available", Resource: "aoe", Op: "=", Value: "app1"}}},
	} {
		if err := s.Root.Manage(ctx, req); err != nil {
			t.Fatalf("qmgr %s %s %s: %v", req.Verb, req.Object, req.Name, err)
		}
	}
}

// TestSimulatorProvisioning: a simulated OS provisioning (hook exit 0,
// reboot, registration with the AOE as image) completes and the job runs;
// with a failure rate of 1 every attempt fails and the server counts the
// failures.
func TestSimulatorProvisioning(t *testing.T) {
	t.Run("reboot", func(t *testing.T) {
		s := startSimulator(t, 2, SimOptions{Speed: 20, ProvTime: 10 * time.Second, ProvReboot: true, ProvRebootTime: 10 * time.Second})
		provisioningSetup(t, s)
		ctx := context.Background()
		r := simJob(model.EnvVar{Name: SimRuntimeVar, Value: "1"})
		r.Resources["select"] = "1:ncpus=1:aoe=app1"
		id, err := s.Root.Submit(ctx, r, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "the provisioned job finished", func() bool {
			resp, err := s.Root.Jobs(ctx, []string{id}, true)
			return err == nil && len(resp.Jobs) == 1 && resp.Jobs[0].State == model.StateFinished
		})
		resp, _ := s.Root.Jobs(ctx, []string{id}, true)
		if j := resp.Jobs[0]; j.Exit == nil || *j.Exit != 0 {
			t.Fatalf("provisioned job: exit %v comment %q", j.Exit, j.Comment)
		}
		nodes, err := s.Root.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range nodes.Vnodes {
			if v.Name == "sim-00001" && v.CurrentAOE != "app1" {
				t.Fatalf("sim-00001 current_aoe %q after the simulated reboot, want app1", v.CurrentAOE)
			}
		}
	})
	t.Run("failure", func(t *testing.T) {
		s := startSimulator(t, 2, SimOptions{Speed: 20, ProvTime: 10 * time.Second, ProvFail: 1})
		provisioningSetup(t, s)
		ctx := context.Background()
		r := simJob()
		r.Resources["select"] = "1:ncpus=1:aoe=app1"
		if _, err := s.Root.Submit(ctx, r, time.Second); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "a counted provisioning failure", func() bool {
			st, err := s.Root.ProvisionStatus(ctx)
			if err != nil {
				return false
			}
			for _, a := range st.PerAOE {
				if a.AOE == "app1" && a.Failures > 0 && a.Successes == 0 {
					return true
				}
			}
			return false
		})
	})
}
