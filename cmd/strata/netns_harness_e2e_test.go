//go:build e2e

package main

// A cluster of "hosts" on one machine for the multi-host tests: each host is
// a network namespace (its own address, its veth on a bridge that lives in
// a namespace of its own) and, for every process started on it, a UTS
// namespace with its host name and a private /etc/hosts naming every host.
// Nothing is installed on the machine itself: each host has a directory
// (its /etc/strata, /var/lib/strata, spool, ...) under the test's
// temporary directory, and runs the test's build of strata in place.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/cmd/clustercmd"
)

// netHost is one simulated machine.
type netHost struct {
	name string // host name (UTS) and the name in /etc/hosts
	ns   string // network namespace
	addr string // IPv4 address on the cluster network
	root string // the host's own files: root+"/etc/strata", ...
}

// path is a path on the host, e.g. h.path("/etc/strata/mom.toml").
func (h *netHost) path(p string) string { return filepath.Join(h.root, p) }

// netCluster is the simulated network and its hosts.
type netCluster struct {
	t      *testing.T
	id     string // unique prefix of namespace and link names
	base   string // the test's directory
	hosts  map[string]*netHost
	order  []string
	daemon map[string]*daemonProc // "host/name" -> running daemon
	args   map[string][]string    // "host/name" -> its strata arguments
	shared string                 // a directory every host sees (shared home)
}

// plainUser is the unprivileged user jobs are submitted as.
const plainUID, plainGID = 65534, 65534

// netnsUnavailable says why this machine cannot run the multi-host tests,
// or "" when it can.
func netnsUnavailable() string {
	if os.Geteuid() != 0 {
		return "not root"
	}
	for _, tool := range []string{"ip", "ss", "nsenter", "unshare", "setpriv", "sh", "bash", "getent"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " is not installed"
		}
	}
	probe := "stprobe" + randomHex(3)
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		return fmt.Sprintf("ip netns add: %v: %s", err, bytes.TrimSpace(out))
	}
	defer exec.Command("ip", "netns", "del", probe).Run()
	if out, err := exec.Command("ip", "netns", "exec", probe, "unshare", "--uts", "--", "hostname", "probe").CombinedOutput(); err != nil {
		return fmt.Sprintf("UTS namespace in a network namespace: %v: %s", err, bytes.TrimSpace(out))
	}
	if out, err := exec.Command("ip", "-n", probe, "link", "add", "br0", "type", "bridge").CombinedOutput(); err != nil {
		return fmt.Sprintf("bridge in a namespace: %v: %s", err, bytes.TrimSpace(out))
	}
	return ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newNetCluster creates the network and one host per name, addresses
// 10.251.0.1, .2, ... in order. Everything is removed at cleanup, also
// when the test fails or a daemon is still running.
func newNetCluster(t *testing.T, names ...string) *netCluster {
	t.Helper()
	if why := netnsUnavailable(); why != "" {
		t.Skipf("multi-host test skipped: this machine cannot make network and UTS namespaces (%s)", why)
	}
	base, err := os.MkdirTemp("", "strata-netns-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	clusterDirs.Lock()
	clusterDirs.dirs = append(clusterDirs.dirs, base+"/")
	clusterDirs.Unlock()
	nc := &netCluster{t: t, id: "st" + randomHex(3), base: base, hosts: map[string]*netHost{}, daemon: map[string]*daemonProc{}, args: map[string][]string{},
		shared: filepath.Join(base, "shared")}
	sw := nc.id + "-sw"
	t.Cleanup(func() { nc.teardown(sw) })

	nc.ip("netns", "add", sw)
	nc.ip("-n", sw, "link", "add", "br0", "type", "bridge")
	nc.ip("-n", sw, "link", "set", "br0", "up")
	var hostsFile strings.Builder
	hostsFile.WriteString("127.0.0.1 localhost\n")
	for i, name := range names {
		h := &netHost{name: name, ns: nc.id + "-" + name, addr: fmt.Sprintf("10.251.0.%d", i+1), root: filepath.Join(base, "hosts", name)}
		port := fmt.Sprintf("%sp%d", nc.id, i)
		nc.ip("netns", "add", h.ns)
		nc.ip("link", "add", "eth0", "netns", h.ns, "type", "veth", "peer", "name", port, "netns", sw)
		nc.ip("-n", sw, "link", "set", port, "master", "br0", "up")
		nc.ip("-n", h.ns, "addr", "add", h.addr+"/24", "dev", "eth0")
		nc.ip("-n", h.ns, "link", "set", "eth0", "up")
		nc.ip("-n", h.ns, "link", "set", "lo", "up")
		for _, d := range []string{"etc/strata/tls", "var/lib/strata", "run/strata", "var/spool/strata", "var/tmp"} {
			os.MkdirAll(h.path(d), 0o755)
		}
		os.Chmod(h.root, 0o755)
		os.Chmod(h.path("var/tmp"), 0o1777)
		nc.hosts[name] = h
		nc.order = append(nc.order, name)
		fmt.Fprintf(&hostsFile, "%s %s\n", h.addr, name)
	}
	if err := os.WriteFile(nc.hostsFile(), []byte(hostsFile.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(nc.shared, 0o777)
	os.Chmod(nc.shared, 0o777)
	return nc
}

func (nc *netCluster) hostsFile() string { return filepath.Join(nc.base, "hosts.txt") }

// ip runs ip(8) and fails the test on error.
func (nc *netCluster) ip(args ...string) {
	nc.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		nc.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// teardown stops every daemon and job, deletes the namespaces (their veth
// links go with them) and the files; on failure it shows the daemons' logs.
func (nc *netCluster) teardown(sw string) {
	for key := range nc.daemon {
		nc.stopDaemon(key)
	}
	clustercmd.KillSessions(clustercmd.SessionsMatching(nc.base+"/"), syscall.SIGKILL)
	if nc.t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(nc.base, "hosts", "*", "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			nc.t.Logf("--- %s ---\n%s", strings.TrimPrefix(l, nc.base), tail(string(b), 3000))
		}
	}
	for _, name := range nc.order {
		exec.Command("ip", "netns", "del", nc.hosts[name].ns).Run()
		removeAgentCgroups(name)
	}
	exec.Command("ip", "netns", "del", sw).Run()
	os.RemoveAll(nc.base)
}

// removeAgentCgroups removes the empty agent cgroups (strata/<host>-*,
// in every hierarchy) the agents of a host left; one in use stays (rmdir
// of a cgroup with processes fails).
func removeAgentCgroups(host string) {
	for _, pattern := range []string{"/sys/fs/cgroup/strata/", "/sys/fs/cgroup/*/strata/", "/sys/fs/cgroup/*/*/*/strata/"} {
		dirs, _ := filepath.Glob(pattern + host + "-*")
		for _, d := range dirs {
			// Job cgroups first (none are left after a clean stop).
			subs, _ := filepath.Glob(filepath.Join(d, "*", "cgroup.procs"))
			for _, s := range subs {
				os.Remove(filepath.Dir(s))
			}
			os.Remove(d)
		}
	}
}

// command is args run on host h, as root or (asUser) as the plain user,
// in h's network namespace with h's host name and /etc/hosts.
func (nc *netCluster) command(h *netHost, asUser bool, args ...string) *exec.Cmd {
	if asUser {
		args = append([]string{"setpriv", fmt.Sprintf("--reuid=%d", plainUID), fmt.Sprintf("--regid=%d", plainGID), "--clear-groups", "--"}, args...)
	}
	// nsenter joins the host's network namespace only (ip netns exec
	// would also remount /sys and hide the cgroup hierarchies the agent
	// uses); unshare adds the host name and a mount namespace, so the
	// bind mount of /etc/hosts stays on this host.
	full := append([]string{"--net=/run/netns/" + h.ns, "unshare", "--uts", "--mount", "--propagation", "private", "--", "sh", "-c",
		`hostname "$0" && mount --bind "$1" /etc/hosts && shift && exec "$@"`, h.name, nc.hostsFile()}, args...)
	cmd := exec.Command("nsenter", full...)
	cmd.Env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"))
	return cmd
}

// run runs a command on h and returns what it printed.
func (nc *netCluster) run(h *netHost, asUser bool, env []string, dir, stdin string, args ...string) result {
	nc.t.Helper()
	cmd := nc.command(h, asUser, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		nc.t.Fatalf("%s on %s: %v", args[0], h.name, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// must runs a command as root on h that must succeed.
func (nc *netCluster) must(h *netHost, args ...string) string {
	nc.t.Helper()
	r := nc.run(h, false, nil, "", "", args...)
	if r.code != 0 {
		nc.t.Fatalf("on %s: %s: exit %d\n%s%s", h.name, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// daemonProc is a running daemon; done is closed when it has exited.
type daemonProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startDaemon starts `strata <args>` on h in a session of its own, its
// output in h's <name>.log.
func (nc *netCluster) startDaemon(h *netHost, name string, args ...string) {
	nc.t.Helper()
	nc.startProgram(h, name, append([]string{filepath.Join(binDir, "strata")}, args...)...)
	nc.args[h.name+"/"+name] = args
}

// startProgram starts any program as a daemon of host h (munged, say).
func (nc *netCluster) startProgram(h *netHost, name string, argv ...string) {
	nc.t.Helper()
	logf, err := os.OpenFile(filepath.Join(h.root, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		nc.t.Fatal(err)
	}
	defer logf.Close()
	cmd := nc.command(h, false, argv...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		nc.t.Fatalf("start %s on %s: %v", name, h.name, err)
	}
	p := &daemonProc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	nc.daemon[h.name+"/"+name] = p
}

// listenIn opens a TCP listener in host h's network namespace: this
// goroutine's thread enters it only for the socket call, so a server of the
// test process (the SSH server) serves that host.
func (nc *netCluster) listenIn(h *netHost, addr string) net.Listener {
	nc.t.Helper()
	runtime.LockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		nc.t.Fatal(err)
	}
	defer self.Close()
	target, err := os.Open("/run/netns/" + h.ns)
	if err != nil {
		runtime.UnlockOSThread()
		nc.t.Fatal(err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		nc.t.Fatalf("enter %s's network namespace: %v", h.name, err)
	}
	ln, lerr := net.Listen("tcp", addr)
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays in the other namespace: leave it locked so that
		// it ends with this goroutine instead of serving others.
		nc.t.Fatalf("return from %s's network namespace: %v", h.name, err)
	}
	runtime.UnlockOSThread()
	if lerr != nil {
		nc.t.Fatalf("listen on %s in %s: %v", addr, h.name, lerr)
	}
	return ln
}

// checkDaemons fails the test at once when a daemon has exited by itself
// (a refused configuration, a crash), instead of letting a wait time out.
func (nc *netCluster) checkDaemons(t *testing.T) {
	t.Helper()
	for key, p := range nc.daemon {
		select {
		case <-p.done:
			b, _ := os.ReadFile(filepath.Join(nc.base, "hosts", key+".log"))
			t.Fatalf("%s exited (%v):\n%s", key, p.cmd.ProcessState, tail(string(b), 2000))
		default:
		}
	}
}

// stopDaemon stops a daemon the way systemctl stop does: SIGTERM, then
// SIGKILL if it does not exit within 10 s.
func (nc *netCluster) stopDaemon(key string) {
	p := nc.daemon[key]
	if p == nil {
		nc.t.Fatalf("%s is not running", key)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
	delete(nc.daemon, key)
}

// restartDaemon stops and starts a daemon with the same arguments.
func (nc *netCluster) restartDaemon(h *netHost, name string) {
	nc.t.Helper()
	key := h.name + "/" + name
	nc.stopDaemon(key)
	nc.startDaemon(h, name, nc.args[key]...)
}

// editTOML sets top-level keys of a TOML file the way an admin edits the
// example: the line "key = ..." is replaced (it must exist, commented or
// not); an empty value comments the line out.
func editTOML(t *testing.T, path string, kv map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		// The first line only: later ones belong to tables (a
		// commented [[peer]] example has its own raft_addr).
		re := regexp.MustCompile(`(?m)^#? ?` + regexp.QuoteMeta(k) + ` = .*$`)
		loc := re.FindIndex(b)
		if loc == nil {
			t.Fatalf("%s: no line for %s", path, k)
		}
		line := k + " = " + v
		if v == "" {
			line = "# " + string(b[loc[0]:loc[1]])
		}
		b = append(append(append([]byte{}, b[:loc[0]]...), line...), b[loc[1]:]...)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// installExample writes dist/NAME as the host's /etc/strata/NAME, as
// `make install` does (with the host's directory as SYSCONFDIR's root).
func installExample(t *testing.T, h *netHost, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "dist", name))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("@SYSCONFDIR@"), []byte(h.path("etc")))
	dst := h.path("etc/strata/" + name)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyFile installs a copy of src as dst with a mode, by rename as the
// guide says (a daemon reloading the file never sees half of it).
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := dst + ".new"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, mode)
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}
