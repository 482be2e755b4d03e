package shepherd

import (
	"bufio"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// identity is who a job runs as on this host, from the password database.
type identity struct {
	UID    int
	GID    int
	Groups []uint32 // supplementary groups
	Name   string
	Home   string
	Shell  string
}

// lookupIdentity resolves the job's numeric uid on this host. The home
// directory falls back to "/" and the shell to /bin/sh, as PBS does, so a
// user without a passwd entry here can still run (under the server's uid).
func lookupIdentity(uid, gid int, fallbackName string) identity {
	id := identity{UID: uid, GID: gid, Name: fallbackName, Home: "/", Shell: "/bin/sh"}
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
