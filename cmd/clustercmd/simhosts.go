package clustercmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/strata-hpc/strata/pki"
)

// simPrefix names the simulated hosts of a local cluster: sim-00001...
const simPrefix = "sim"

// addSimHosts adds one `strata mom --simulate N` process to a new cluster
// (--sim-hosts N): a simulator certificate for the prefix "sim" from the
// cluster CA and an agent configuration whose resources every simulated
// host advertises (docs/simulate.md).
func addSimHosts(dir string, l *Layout, n, ncpus int, mem string, speed float64) error {
	td := tlsDir(dir)
	cert, key := pki.SimulatorFiles(td, simPrefix)
	if _, err := pki.Issue(td, pki.RoleSimulator, []string{simPrefix}, cert, key); err != nil {
		return fmt.Errorf("simulator certificate: %w", err)
	}
	simDir := filepath.Join(dir, simPrefix)
	if err := os.MkdirAll(simDir, 0o755); err != nil {
		return err
	}
	conf := fmt.Sprintf(`# Simulated hosts of the local cluster (written by strata cluster start --sim-hosts).
server = %q
tls = { ca_file = %q, cert_file = %q, key_file = %q }
host = %q
spool = %q
heartbeat_interval = "1s"

[resources]
ncpus = %d
mem = %q
`, l.APIAddr, filepath.Join(td, pki.CAFile), cert, key, simPrefix, filepath.Join(simDir, "spool"), ncpus, mem)
	path := filepath.Join(simDir, "mom.toml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return err
	}
	l.Procs = append(l.Procs, Process{Name: simPrefix, Role: "mom", Config: path, Addr: fmt.Sprintf("%s-1..%d", simPrefix, n),
		Log: filepath.Join(dir, simPrefix+".log"), Hosts: n,
		Args: []string{"--simulate", strconv.Itoa(n), "--sim-speed", strconv.FormatFloat(speed, 'g', -1, 64)}})
	return l.save(dir)
}
