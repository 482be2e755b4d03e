package shepherd

import (
	"bufio"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// Identity is who a job runs as on this host, from the password database.
// The agent resolves it (LookupIdentity, through NSS: the agent is built
// with cgo) and passes it to the shepherd in launch.json, so that the
// shepherd, a static executable without cgo, runs the job with the same
// name, home, shell and groups as an NSS lookup gives (LDAP, sssd).
type Identity struct {
	UID    int      `json:"uid"`
	GID    int      `json:"gid"`
	Groups []uint32 `json:"groups,omitempty"` // supplementary groups
	Name   string   `json:"name"`
	Home   string   `json:"home"`
	Shell  string   `json:"shell"`
}

// LookupIdentity resolves the job's numeric uid on this host. The home
// directory falls back to "/" and the shell to /bin/sh, as PBS does, so a
// user without a passwd entry here can still run (under the server's uid).
func LookupIdentity(uid, gid int, fallbackName string) Identity {
	id := Identity{UID: uid, GID: gid, Name: fallbackName, Home: "/", Shell: "/bin/sh"}
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		id.Name = u.Username
		if u.HomeDir != "" {
			id.Home = u.HomeDir
		}
		if gids, err := u.GroupIds(); err == nil {
			for _, g := range gids {
				if n, err := strconv.ParseUint(g, 10, 32); err == nil {
					id.Groups = append(id.Groups, uint32(n))
				}
			}
		}
	}
	if sh := loginShell(uid); sh != "" {
		id.Shell = sh
	}
	if st, err := os.Stat(id.Home); err != nil || !st.IsDir() {
		id.Home = "/"
	}
	return id
}

// loginShell reads the shell field of /etc/passwd, which os/user does not
// expose.
func loginShell(uid int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	want := strconv.Itoa(uid)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 7 && fields[2] == want {
			return strings.TrimSpace(fields[6])
		}
	}
	return ""
}
