package mom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/internal/sshtest"
	"github.com/strata-hpc/strata/model"
)

// The tests of delivery and staging run jobs as nobody (uid 65534) under
// a real shepherd; "otherhost" is a real SSH server with SFTP on loopback
// (internal/sshtest), reached through [ssh.addresses] and known under
// that name in nobody's known_hosts.

const nobodyUID = 65534

// sshFixture is another host and nobody's SSH files.
type sshFixture struct {
	srv    *sshtest.Server
	remote string // the directory "otherhost" serves
	udir   string // nobody's key and known_hosts
	cfg    TransferConfig
}

func newSSHFixture(t *testing.T) *sshFixture {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run jobs as nobody")
	}
	key, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	remote := worldDir(t, 0o777)
	srv, err := sshtest.Start(remote, key.Signer.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	keys := worldDir(t, 0o755)
	udir := filepath.Join(keys, "nobody")
	mustMkdirOwned(t, udir, 0o700, nobodyUID)
	writeOwned(t, filepath.Join(udir, "id_ed25519"), string(key.PEM), 0o600, nobodyUID)
	writeOwned(t, filepath.Join(udir, "known_hosts"), srv.KnownHostsLine("otherhost")+"\n", 0o644, nobodyUID)
	cfg := TransferConfig{SSH: SSHConfig{
		Port:             22,
		Addresses:        map[string]string{"otherhost": srv.Addr},
		IdentityFiles:    []string{keys + "/%u/id_ed25519"},
		UserKnownHosts:   []string{keys + "/%u/known_hosts"},
		GlobalKnownHosts: []string{},
		ConnectTimeout:   5 * time.Second,
	}}
	return &sshFixture{srv: srv, remote: remote, udir: udir, cfg: cfg}
}

func (f *sshFixture) run(t *testing.T, spoolDir string, j *model.Job) *Result {
	t.Helper()
	return runShepherdWith(t, spoolDir, j, time.Second, func(lp *launchParams) { lp.Transfer = f.cfg })
}

func mustMkdirOwned(t *testing.T, p string, mode os.FileMode, uid int) {
	t.Helper()
	if err := os.Mkdir(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
}

func writeOwned(t *testing.T, p, body string, mode os.FileMode, uid int) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// nobodyJob is testJob run as nobody.
func nobodyJob(id, script, outDir string) *model.Job {
	j := testJob(id, script, outDir)
	j.UID, j.GID, j.User = nobodyUID, nobodyUID, "nobody"
	return j
}

// TestDeliverOutputOverSSH: -o/-e otherhost:path are copied over SSH and
// SFTP, logged in as the job's owner with the owner's key, created with
// the job's umask; the spooled files are gone afterwards.
func TestDeliverOutputOverSSH(t *testing.T) {
	f := newSSHFixture(t)
	spoolDir := t.TempDir()
	j := nobodyJob("40.srv", "echo out-40\necho err-40 >&2\n", worldDir(t, 0o777))
	j.Output = "otherhost:" + filepath.Join(f.remote, "t.o40")
	j.Error = "otherhost:" + f.remote // a directory: <jobid>.ER inside
	res := f.run(t, spoolDir, j)
	if res.Exit != 0 || res.Comment != "" {
		t.Fatalf("result %+v", res)
	}
	if got := readFile(t, filepath.Join(f.remote, "t.o40")); got != "out-40\n" {
		t.Errorf("delivered stdout %q", got)
	}
	if got := readFile(t, filepath.Join(f.remote, "40.srv.ER")); got != "err-40\n" {
		t.Errorf("delivered stderr %q", got)
	}
	if st, err := os.Stat(filepath.Join(f.remote, "t.o40")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("delivered file mode: %v %v, want 600 (umask 077)", st, err)
	}
	if logins := f.srv.Logins(); len(logins) != 1 || logins[0] != "nobody" {
		t.Errorf("logins %q, want one as nobody", logins)
	}
	if ents, _ := os.ReadDir(filepath.Join(spoolDir, "undelivered")); len(ents) != 0 {
		t.Errorf("undelivered files left: %v", ents)
	}
}

// TestDeliverRefusesBadHostKey: a host whose key differs from
// known_hosts (a man in the middle) or is not listed at all gets
// nothing; the output stays in undelivered/ and the comment says why.
func TestDeliverRefusesBadHostKey(t *testing.T) {
	f := newSSHFixture(t)
	other, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		known string
		want  string
	}{
		{"[otherhost]:" + portOf(f.srv) + " " + other.AuthorizedLine() + "\n", "does not match known_hosts"},
		{"[elsewhere]:" + portOf(f.srv) + " " + other.AuthorizedLine() + "\n", "is not in known_hosts"},
	} {
		writeOwned(t, filepath.Join(f.udir, "known_hosts"), tc.known, 0o644, nobodyUID)
		spoolDir := t.TempDir()
		id := model.FormatJobID(int64(41+i), "srv")
		j := nobodyJob(id, "echo secret\n", worldDir(t, 0o777))
		j.Join = "oe"
		j.Output = "otherhost:" + filepath.Join(f.remote, "stolen")
		res := f.run(t, spoolDir, j)
		if !strings.Contains(res.Comment, "Output file could not be delivered to otherhost:") || !strings.Contains(res.Comment, tc.want) ||
			!strings.Contains(res.Comment, "output retained on testhost in") {
			t.Errorf("comment %q, want delivery failure with %q", res.Comment, tc.want)
		}
		if got := readFile(t, filepath.Join(spoolDir, "undelivered", id+".OU")); got != "secret\n" {
			t.Errorf("undelivered file %q", got)
		}
		if _, err := os.Stat(filepath.Join(f.remote, "stolen")); err == nil {
			t.Errorf("output written despite the bad host key")
		}
	}
	if logins := f.srv.Logins(); len(logins) != 0 {
		t.Errorf("the client authenticated to a host it could not verify: %q", logins)
	}
}

func portOf(s *sshtest.Server) string {
	_, p, _ := strings.Cut(s.Addr, ":")
	return p
}

// TestDeliverRefusesKeysNotTheOwners: the helper reads keys as the
// owner, and only the owner's own private files: a symlink to root's
// key (unreadable as the owner), a key owned by someone else, or a key
// others may read is not used.
func TestDeliverRefusesKeysNotTheOwners(t *testing.T) {
	f := newSSHFixture(t)
	keyPath := filepath.Join(f.udir, "id_ed25519")
	pemKey := readFile(t, keyPath)
	rootKey := filepath.Join(worldDir(t, 0o755), "root_id")
	writeOwned(t, rootKey, pemKey, 0o600, 0)
	for i, tc := range []struct {
		name  string
		setup func()
		want  string
	}{
		{"symlink to root's key", func() { os.Remove(keyPath); os.Symlink(rootKey, keyPath) }, "permission denied"},
		{"key of another owner", func() { os.Remove(keyPath); writeOwned(t, keyPath, pemKey, 0o644, 0) }, "does not belong to the job owner"},
		{"key readable by others", func() { os.Remove(keyPath); writeOwned(t, keyPath, pemKey, 0o644, nobodyUID) }, "accessible by others"},
	} {
		tc.setup()
		spoolDir := t.TempDir()
		id := model.FormatJobID(int64(45+i), "srv")
		j := nobodyJob(id, "echo x\n", worldDir(t, 0o777))
		j.Join = "oe"
		j.Output = "otherhost:" + filepath.Join(f.remote, "k")
		res := f.run(t, spoolDir, j)
		if !strings.Contains(res.Comment, "no usable SSH key for nobody") || !strings.Contains(res.Comment, tc.want) ||
			!strings.Contains(res.Comment, "ssh-agent is not available") {
			t.Errorf("%s: comment %q, want %q", tc.name, res.Comment, tc.want)
		}
	}
	if logins := f.srv.Logins(); len(logins) != 0 {
		t.Errorf("logged in with a key that is not the owner's: %q", logins)
	}
}

// TestDeliverRefusesOptionAsHost: a host part that is an ssh option
// (Output_Path written through the API, bypassing qsub's check) is
// never dialled or passed anywhere.
func TestDeliverRefusesOptionAsHost(t *testing.T) {
	f := newSSHFixture(t)
	spoolDir := t.TempDir()
	j := nobodyJob("48.srv", "echo x\n", worldDir(t, 0o777))
	j.Join = "oe"
	j.Output = "-oProxyCommand=touch " + "x:/tmp/y"
	res := f.run(t, spoolDir, j)
	if !strings.Contains(res.Comment, "is not a host name") {
		t.Errorf("comment %q", res.Comment)
	}
	if _, err := os.Stat(filepath.Join(spoolDir, "undelivered", "48.srv.OU")); err != nil {
		t.Errorf("output not kept: %v", err)
	}
}

// TestStageInAndOutOverSSH: stage-in copies before the script runs,
// stage-out (with a wildcard into a directory) after it, and the staged
// files are removed from the execution host afterwards, as PBS does.
func TestStageInAndOutOverSSH(t *testing.T) {
	f := newSSHFixture(t)
	os.WriteFile(filepath.Join(f.remote, "in.dat"), []byte("input-data\n"), 0o644)
	os.Mkdir(filepath.Join(f.remote, "results"), 0o777)
	work := worldDir(t, 0o777)
	script := "cd " + work + "\ncat in.dat > a.out\necho b > b.out\necho keep > keep.log\n"
	j := nobodyJob("50.srv", script, worldDir(t, 0o777))
	j.Stagein = work + "/in.dat@otherhost:" + filepath.Join(f.remote, "in.dat")
	j.Stageout = work + "/*.out@otherhost:" + filepath.Join(f.remote, "results")
	res := f.run(t, t.TempDir(), j)
	if res.Exit != 0 || res.Comment != "" {
		t.Fatalf("result %+v", res)
	}
	if got := readFile(t, filepath.Join(f.remote, "results", "a.out")); got != "input-data\n" {
		t.Errorf("staged-out a.out %q (stage-in must precede the script)", got)
	}
	if got := readFile(t, filepath.Join(f.remote, "results", "b.out")); got != "b\n" {
		t.Errorf("staged-out b.out %q", got)
	}
	for _, gone := range []string{"in.dat", "a.out", "b.out"} {
		if _, err := os.Stat(filepath.Join(work, gone)); err == nil {
			t.Errorf("%s left on the execution host", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "keep.log")); err != nil {
		t.Errorf("a file not staged out was removed: %v", err)
	}
}

// TestStageInFailure: a stage-in that cannot copy reports
// stagein_failed with PBS's message, the job does not run, and files
// already staged in are removed.
func TestStageInFailure(t *testing.T) {
	f := newSSHFixture(t)
	os.WriteFile(filepath.Join(f.remote, "ok.dat"), []byte("ok\n"), 0o644)
	work := worldDir(t, 0o777)
	j := nobodyJob("51.srv", "touch "+work+"/ran\n", worldDir(t, 0o777))
	j.Stagein = work + "/ok.dat@otherhost:" + filepath.Join(f.remote, "ok.dat") +
		"," + work + "/missing.dat@otherhost:" + filepath.Join(f.remote, "missing.dat")
	res := f.run(t, t.TempDir(), j)
	if res.Kind != model.JobEventStageinFailed || !strings.Contains(res.Comment, "Unable to copy file "+work+"/missing.dat from otherhost:") {
		t.Fatalf("result %+v", res)
	}
	for _, p := range []string{"ran", "ok.dat"} {
		if _, err := os.Stat(filepath.Join(work, p)); err == nil {
			t.Errorf("%s exists after a failed stage-in", p)
		}
	}
}

// TestStagingAsOwnerOnly: staging runs with the owner's rights. A
// stage-in onto a symlink the owner planted towards root's file (or onto
// that file through ".."), and a
// stage-out of a symlink towards a file only root may read, both fail;
// root's file is neither changed nor sent.
func TestStagingAsOwnerOnly(t *testing.T) {
	f := newSSHFixture(t)
	os.WriteFile(filepath.Join(f.remote, "evil"), []byte("overwritten\n"), 0o644)
	secretDir := worldDir(t, 0o755)
	victim := filepath.Join(secretDir, "victim")
	writeOwned(t, victim, "root's\n", 0o644, 0)
	secret := filepath.Join(secretDir, "secret")
	writeOwned(t, secret, "root only\n", 0o600, 0)
	work := worldDir(t, 0o1777)
	os.Symlink(victim, filepath.Join(work, "in.lnk"))
	os.Lchown(filepath.Join(work, "in.lnk"), nobodyUID, nobodyUID)
	os.Symlink(secret, filepath.Join(work, "out.lnk"))
	os.Lchown(filepath.Join(work, "out.lnk"), nobodyUID, nobodyUID)

	j := nobodyJob("52.srv", "true\n", worldDir(t, 0o777))
	j.Stagein = work + "/in.lnk@otherhost:" + filepath.Join(f.remote, "evil")
	res := f.run(t, t.TempDir(), j)
	if res.Kind != model.JobEventStageinFailed || !strings.Contains(res.Comment, "permission denied") {
		t.Errorf("stage-in through a symlink: %+v", res)
	}
	if got := readFile(t, victim); got != "root's\n" {
		t.Errorf("root's file became %q", got)
	}

	// The same target reached with "..": still the owner's rights.
	j = nobodyJob("56.srv", "true\n", worldDir(t, 0o777))
	j.Stagein = work + "/../" + filepath.Base(secretDir) + "/victim@otherhost:" + filepath.Join(f.remote, "evil")
	res = f.run(t, t.TempDir(), j)
	if res.Kind != model.JobEventStageinFailed || !strings.Contains(res.Comment, "permission denied") {
		t.Errorf("stage-in through ..: %+v", res)
	}
	if got := readFile(t, victim); got != "root's\n" {
		t.Errorf("root's file became %q", got)
	}

	j = nobodyJob("53.srv", "true\n", worldDir(t, 0o777))
	j.Stageout = work + "/out.lnk@otherhost:" + filepath.Join(f.remote, "leak")
	res = f.run(t, t.TempDir(), j)
	if !strings.Contains(res.Comment, "Stage-out failed") || !strings.Contains(res.Comment, "permission denied") {
		t.Errorf("stage-out of root's file: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.remote, "leak")); err == nil {
		t.Errorf("root's file was sent")
	}
}

// TestUsecpCopiesLocally: a destination a [[usecp]] mapping covers is
// written through the local path, without SSH, and with the owner's
// rights (a mapped path onto root's file is refused).
func TestUsecpCopiesLocally(t *testing.T) {
	f := newSSHFixture(t)
	shared := worldDir(t, 0o777)
	writeOwned(t, filepath.Join(shared, "roots"), "root's\n", 0o644, 0)
	f.cfg.UseCP = []UseCP{{Host: "*.cluster.example", Remote: "/gpfs/home/", Local: shared + "/"}}
	spoolDir := t.TempDir()
	j := nobodyJob("54.srv", "echo shared\necho e >&2\n", worldDir(t, 0o777))
	j.Output = "login1.cluster.example:/gpfs/home/t.o54"
	j.Error = "LOGIN2.Cluster.Example:/gpfs/home/roots"
	res := f.run(t, spoolDir, j)
	if got := readFile(t, filepath.Join(shared, "t.o54")); got != "shared\n" {
		t.Errorf("usecp delivery %q", got)
	}
	if !strings.Contains(res.Comment, "could not be delivered to LOGIN2.Cluster.Example:/gpfs/home/roots") || !strings.Contains(res.Comment, "permission denied") {
		t.Errorf("comment %q", res.Comment)
	}
	if got := readFile(t, filepath.Join(shared, "roots")); got != "root's\n" {
		t.Errorf("root's file became %q", got)
	}
	if logins := f.srv.Logins(); len(logins) != 0 {
		t.Errorf("usecp paths went over SSH: %q", logins)
	}
}

// TestRoute: which destinations are local.
func TestRoute(t *testing.T) {
	c := TransferConfig{
		LocalNames: []string{"localhost", "node1", "node1.example.org"},
		UseCP:      []UseCP{{Host: "*.example.org", Remote: "/home/", Local: "/nfs/home/"}, {Host: "fs1", Remote: "/", Local: "/mnt/fs1/"}},
	}
	all := TransferConfig{UseCP: []UseCP{{Host: "*", Remote: "/", Local: "/"}}}
	if local, ok, _ := all.Route("anyhost", "/home/a/o"); !ok || local != "/home/a/o" {
		t.Errorf("usecp * / /: %q %v", local, ok)
	}
	for _, tc := range []struct {
		host, path, local string
		ok, err           bool
	}{
		{"node1", "/x", "/x", true, false},
		{"NODE1", "/x", "/x", true, false},
		{"node1.example.org", "/x", "/x", true, false},
		{"localhost", "/x", "/x", true, false},
		{"login.example.org", "/home/a/o", "/nfs/home/a/o", true, false},
		{"login.example.org", "/scratch/o", "", false, false},
		{"fs1", "/data/x", "/mnt/fs1/data/x", true, false},
		{"node10", "/x", "", false, false},
		{"-oProxyCommand=x", "/x", "", false, true},
		{"user@host", "/x", "", false, true},
	} {
		local, ok, err := c.Route(tc.host, tc.path)
		if local != tc.local || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("route(%q, %q) = %q %v %v", tc.host, tc.path, local, ok, err)
		}
	}
}

// TestTransferTimeoutStopsAStalledCopy: the owner points -o at a FIFO
// nobody reads, so the copy would block forever and hold the job (and
// its vnodes) past its end; the helper is killed after transfer_timeout
// and the output is kept in undelivered/.
func TestTransferTimeoutStopsAStalledCopy(t *testing.T) {
	f := newSSHFixture(t)
	f.cfg.Timeout = time.Second
	out := worldDir(t, 0o777)
	fifo := filepath.Join(out, "fifo")
	if err := syscallMkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	os.Chown(fifo, nobodyUID, nobodyUID)
	spoolDir := t.TempDir()
	j := nobodyJob("55.srv", "echo stuck\n", out)
	j.Join = "oe"
	j.Output = "testhost:" + fifo
	start := time.Now()
	res := f.run(t, spoolDir, j)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the shepherd waited %s", took)
	}
	if !strings.Contains(res.Comment, "did not finish within 1s") {
		t.Errorf("comment %q", res.Comment)
	}
	if got := readFile(t, filepath.Join(spoolDir, "undelivered", "55.srv.OU")); got != "stuck\n" {
		t.Errorf("undelivered %q", got)
	}
}

func syscallMkfifo(p string) error { return unix.Mkfifo(p, 0o600) }

// TestDeliverIgnoresForgeableKnownHosts: a known_hosts file others may
// write (so anyone could have added a key to it) is not trusted.
func TestDeliverIgnoresForgeableKnownHosts(t *testing.T) {
	f := newSSHFixture(t)
	os.Chmod(filepath.Join(f.udir, "known_hosts"), 0o666)
	j := nobodyJob("57.srv", "echo x\n", worldDir(t, 0o777))
	j.Join = "oe"
	j.Output = "otherhost:" + filepath.Join(f.remote, "o57")
	res := f.run(t, t.TempDir(), j)
	if !strings.Contains(res.Comment, "known_hosts is writable by others: ignored") || !strings.Contains(res.Comment, "refusing to connect") {
		t.Errorf("comment %q", res.Comment)
	}
	if logins := f.srv.Logins(); len(logins) != 0 {
		t.Errorf("connected on a forgeable known_hosts: %q", logins)
	}
}

// TestSSHDefaultsAreTheOwnersHome: with the defaults, keys and
// known_hosts are the owner's ~/.ssh files plus the system file.
func TestSSHDefaultsAreTheOwnersHome(t *testing.T) {
	u := sshUser{UID: 1000, Name: "alice", Home: "/home/alice"}
	d := &sshDialer{cfg: withSSHDefaults(SSHConfig{}), user: u}
	var keys []string
	for _, p := range d.cfg.IdentityFiles {
		keys = append(keys, u.Expand(p))
	}
	if got := strings.Join(keys, " "); got != "/home/alice/.ssh/id_ed25519 /home/alice/.ssh/id_ecdsa /home/alice/.ssh/id_rsa" {
		t.Errorf("keys %s", got)
	}
	if got := strings.Join(d.knownHostsFiles(), " "); got != "/home/alice/.ssh/known_hosts /etc/ssh/ssh_known_hosts" {
		t.Errorf("known_hosts %s", got)
	}
	if d.cfg.Port != 22 || d.cfg.ConnectTimeout != 10*time.Second {
		t.Errorf("port %d timeout %s", d.cfg.Port, d.cfg.ConnectTimeout)
	}
	if got := u.Expand("/keys/%u/%%h"); got != "/keys/alice/%h" {
		t.Errorf("expand %q", got)
	}
}
