package clustercmd

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
)

// Simulated reboots of the local cluster's agents (provisioning). Each
// agent announces the boot id held in <dir>/<node>/boot_id; `strata
// cluster reboot` stops the agent, writes a new boot id and starts it
// again, which is what the server sees of a real reboot: the host goes
// silent and registers with another boot id. Agents run it as their
// reboot_command after a provision hook exits 0.

func rebootCommand() *cli.Command {
	return &cli.Command{
		Name:  "reboot",
		Usage: "simulate a reboot of one agent: restart it with a new boot id",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "cluster directory", Required: true, EnvVars: []string{"STRATA_CLUSTER_DIR"}},
			&cli.StringFlag{Name: "node", Usage: "agent to reboot (node1...)", Required: true},
		},
		Action: reboot,
	}
}

func bootIDPath(dir, node string) string { return filepath.Join(dir, node, "boot_id") }
func aoePath(dir, node string) string    { return filepath.Join(dir, node, "aoe") }

func newBootID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func writeBootID(dir, node string) error {
	id, err := newBootID()
	if err != nil {
		return err
	}
	return os.WriteFile(bootIDPath(dir, node), []byte(id+"\n"), 0o644)
}

func reboot(c *cli.Context) error {
	dir, err := filepath.Abs(c.String("dir"))
	if err != nil {
		return err
	}
	layout, err := loadLayout(dir)
	if err != nil {
		return cli.Exit("strata cluster reboot: "+err.Error(), 1)
	}
	node := c.String("node")
	for _, p := range layout.Procs {
		if p.Name != node || p.Role != "mom" {
			continue
		}
		if pid := pidOf(dir, p.Name); pid != 0 {
			syscall.Kill(pid, syscall.SIGTERM)
			deadline := time.Now().Add(10 * time.Second)
			for processAlive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if processAlive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if err := writeBootID(dir, node); err != nil {
			return err
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		_, err = launch(dir, exe, p)
		return err
	}
	return cli.Exit(fmt.Sprintf("strata cluster reboot: no agent %q", node), 1)
}

// processAlive reports whether pid runs (a zombie counts as gone).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z")
}

// agentProvisionConf is the provisioning part of a local agent's
// configuration: its image marker, its boot id and its reboot command.
func agentProvisionConf(dir, exe, node string) string {
	return fmt.Sprintf(`
# Provisioning (docs/provisioning.md): the image marker a provision hook
# rewrites, the boot id a simulated reboot changes, and the reboot.
aoe_file = %q
boot_id_file = %q
reboot_command = [%q, "cluster", "reboot", "--dir", %q, "--node", %q]
`, aoePath(dir, node), bootIDPath(dir, node), exe, dir, node)
}
