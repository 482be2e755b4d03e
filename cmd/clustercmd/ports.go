package clustercmd

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// freePort picks an unused loopback port for a daemon of the cluster in dir
// and reserves it for that cluster.
//
// The port is drawn below the kernel's ephemeral range (which starts at
// 32768 by default): a port handed out by a ":0" listen can be taken by any
// outgoing connection's source port before the daemon binds it. A port that
// is free now can still be picked by another local cluster started at the
// same moment, or while this cluster's server restarts (its configuration
// keeps the port): the reservation file makes the pick exclusive among the
// clusters of this user until the cluster's directory is removed.
func freePort(dir string) (string, error) {
	lo, hi := 20000, ephemeralLow()
	res, err := reservations()
	if err != nil {
		return "", err
	}
	for i := 0; i < 400; i++ {
		var b [2]byte
		rand.Read(b[:])
		port := lo + (int(b[0])<<8|int(b[1]))%(hi-lo)
		if !reserve(res, port, dir) {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			os.Remove(filepath.Join(res, strconv.Itoa(port)))
			continue
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr, nil
	}
	return "", fmt.Errorf("no free port between %d and %d", lo, hi)
}

// reservations is this user's directory of port reservations, private to
// the user: another local user must not be able to plant or read entries.
func reservations() (string, error) {
	res := filepath.Join(os.TempDir(), fmt.Sprintf("strata-ports-%d", os.Getuid()))
	if err := os.Mkdir(res, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("port reservations: %w", err)
	}
	fi, err := os.Lstat(res)
	if err != nil {
		return "", fmt.Errorf("port reservations: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("port reservations: %s is not a private directory of this user", res)
	}
	return res, nil
}

// sweepReservations removes the reservations of clusters whose directory
// is gone (test clusters in removed temporary directories), so the
// directory does not grow with every cluster ever started. cluster start
// calls it once before it picks ports.
func sweepReservations() {
	res, err := reservations()
	if err != nil {
		return
	}
	entries, err := os.ReadDir(res)
	if err != nil {
		return
	}
	for _, e := range entries {
		path := filepath.Join(res, e.Name())
		if stale(path, time.Minute) {
			os.Remove(path)
		}
	}
}

// reserve claims port for the cluster in dir. A reservation whose cluster
// directory no longer exists is stale and taken over.
func reserve(res string, port int, dir string) bool {
	path := filepath.Join(res, strconv.Itoa(port))
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.WriteString(dir + "\n")
			f.Close()
			return err == nil
		}
		if !stale(path, time.Minute) {
			return false // held by a cluster that still exists
		}
		os.Remove(path)
	}
	return false
}

// stale reports whether the reservation at path belongs to a cluster whose
// directory is gone. An empty reservation is one being written (its
// creator writes the directory right after the exclusive create), so it
// counts as stale only once older than grace (its creator died between
// the two).
func stale(path string, grace time.Duration) bool {
	owner, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	dir := strings.TrimSpace(string(owner))
	if dir == "" {
		fi, err := os.Stat(path)
		return err == nil && time.Since(fi.ModTime()) > grace
	}
	_, err = os.Stat(dir)
	return errors.Is(err, os.ErrNotExist)
}

// ephemeralLow reads the start of the kernel's ephemeral port range.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 21000 {
				return n
			}
		}
	}
	return 32768
}
