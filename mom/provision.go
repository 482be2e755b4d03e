package mom

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/server/api"
)

// Agent-side provisioning (hook provision_mode = agent, the default). The
// server lists the host's running operation in the work poll; the agent
// runs the hook once per attempt, keeps the result in its spool and
// reports it until the server stops listing the operation, so a server
// restart or failover in between loses nothing. Exit 0 (OS provisioning)
// is followed by the configured reboot command.

// provRecord is the spool record of one attempt (spool/provision/<key>).
type provRecord struct {
	State    string `json:"state"` // running, done
	Pid      int    `json:"pid"`   // the agent process running the hook
	Kind     string `json:"kind,omitempty"`
	Exit     int    `json:"exit"`
	Message  string `json:"message,omitempty"`
	Rebooted bool   `json:"rebooted,omitempty"`
}

func (a *Agent) provDir() string { return filepath.Join(a.cfg.Spool, "provision") }

func (a *Agent) provRecordPath(p *api.ProvisionWork) string {
	return filepath.Join(a.provDir(), p.Key()+".json")
}

func (a *Agent) readProvRecord(p *api.ProvisionWork) *provRecord {
	b, err := os.ReadFile(a.provRecordPath(p))
	if err != nil {
		return nil
	}
	var r provRecord
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

func (a *Agent) writeProvRecord(p *api.ProvisionWork, r *provRecord) error {
	if err := os.MkdirAll(a.provDir(), 0o700); err != nil {
		return err
	}
	return writeJSONAtomic(a.provRecordPath(p), r, 0o600)
}

// provision handles the work poll's provisioning item (nil: none).
func (a *Agent) provision(ctx context.Context, p *api.ProvisionWork) {
	if p == nil || p.Host != a.cfg.Host {
		return
	}
	rec := a.readProvRecord(p)
	switch {
	case rec == nil:
	case rec.State == "done":
		go a.reportProvision(ctx, p, rec) // the server has not applied it yet
		return
	default:
		// Running here, or under an agent process that is gone (its hook's
		// result is lost: the server's alarm decides).
		return
	}
	rec = &provRecord{State: "running", Pid: os.Getpid()}
	if err := a.writeProvRecord(p, rec); err != nil {
		a.logger.Printf("provision %s: spool: %v", p.AOE, err)
		go a.reportProvision(ctx, p, &provRecord{State: "done", Kind: hooks.ProvNotStarted, Exit: -1, Message: err.Error()})
		return
	}
	a.logger.Printf("provisioning %s with AOE %s (attempt %d, job %s)", strings.Join(p.Vnodes, ","), p.AOE, p.Attempt, p.JobID)
	go a.runProvision(ctx, p)
}

func (a *Agent) runProvision(ctx context.Context, p *api.ProvisionWork) {
	h := p.Hook
	left := time.Until(time.Unix(p.Started+int64(p.Hook.Alarm), 0))
	h.Alarm = max(1, int(left.Seconds()))
	r := &hooks.Runner{Dir: filepath.Join(a.provDir(), "hooks")}
	if a.cfg.AOEFile != "" {
		r.Env = []string{"STRATA_HOOK_AOE_FILE=" + a.cfg.AOEFile}
	}
	vnode := a.cfg.Host
	if len(p.Vnodes) > 0 {
		vnode = p.Vnodes[0]
	}
	out := r.Run(ctx, &h, hooks.Event{Type: "provision", Requestor: "Server", Vnode: vnode, Vnodes: p.Vnodes, AOE: p.AOE}, nil)
	kind, exit := hooks.ProvisionOutcome(out)
	if kind == hooks.ProvAbandoned {
		return // the agent is stopping; the record says running, the alarm decides
	}
	rec := &provRecord{State: "done", Kind: kind, Exit: exit, Message: strings.TrimSpace(out.Stderr)}
	if kind != hooks.ProvExited {
		rec.Message = strings.TrimSpace(out.Message + " " + out.Stderr)
	}
	if err := a.writeProvRecord(p, rec); err != nil {
		a.logger.Printf("provision: spool: %v", err)
	}
	a.logger.Printf("provision hook for AOE %s ended: %s %d %s", p.AOE, kind, exit, rec.Message)
	a.reportProvision(ctx, p, rec)
}

// reportProvision sends the result, then reboots after an exit 0.
func (a *Agent) reportProvision(ctx context.Context, p *api.ProvisionWork, rec *provRecord) {
	b := newBackoff(100*time.Millisecond, 2*time.Second)
	for {
		err := a.client.ProvisionReport(ctx, &api.ProvisionReport{Host: a.cfg.Host, Attempt: p.Attempt, Kind: rec.Kind, Exit: rec.Exit, Message: rec.Message})
		if err == nil {
			break
		}
		a.logger.Printf("provision report: %v (retrying)", err)
		if !b.wait(ctx) {
			return
		}
	}
	if rec.Kind == hooks.ProvExited && rec.Exit == 0 && !rec.Rebooted {
		rec.Rebooted = true
		a.writeProvRecord(p, rec)
		a.reboot()
	}
}

// reboot runs the configured reboot command in its own session (it may
// well stop this agent). Without one, the hook is expected to have
// arranged the reboot itself.
func (a *Agent) reboot() {
	if len(a.cfg.RebootCommand) == 0 {
		a.logger.Printf("provision hook exited 0: waiting for the host to reboot (no reboot_command)")
		return
	}
	a.logger.Printf("provision hook exited 0: rebooting with %v", a.cfg.RebootCommand)
	cmd := exec.Command(a.cfg.RebootCommand[0], a.cfg.RebootCommand[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		a.logger.Printf("reboot command: %v", err)
		return
	}
	go cmd.Wait()
}

// imageAOE is the AOE the host runs, from the aoe_file marker: nil when
// no aoe_file is configured (the agent cannot tell), "" when the file is
// absent or empty.
func (a *Agent) imageAOE() *string {
	if a.cfg.AOEFile == "" {
		return nil
	}
	b, _ := os.ReadFile(a.cfg.AOEFile)
	s := strings.TrimSpace(string(b))
	return &s
}

// announcedBootID is the boot id the agent registers with: the content of
// boot_id_file when configured (the local cluster's "reboot" rewrites it),
// else the kernel's. Shepherd records keep the kernel's id.
func (a *Agent) announcedBootID() string {
	if a.cfg.BootIDFile != "" {
		if b, err := os.ReadFile(a.cfg.BootIDFile); err == nil {
			if s := strings.TrimSpace(string(b)); s != "" {
				return s
			}
		}
	}
	return a.bootID
}
