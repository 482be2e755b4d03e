package pbscmd

import (
	"os"
	"path/filepath"
	"testing"
)

// The client configuration selects the transport as pbs.conf would:
// STRATA_SOCKET means the local socket, PBS_SERVER alone means TCP, the
// environment wins over the file, and nothing at all is the default socket.
func TestResolveTarget(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "strata.conf")
	os.WriteFile(conf, []byte("# login host\nPBS_SERVER = head1,head2:15099\nSTRATA_CA_FILE=\"/etc/site/ca.pem\"\nBOGUS=1\nnot a line\n"), 0o644)
	cases := []struct {
		name string
		env  map[string]string
		want Target
	}{
		{"file selects TCP", map[string]string{"STRATA_CONF": conf},
			Target{Addr: "head1,head2:15099", CAFile: "/etc/site/ca.pem"}},
		{"environment wins", map[string]string{"STRATA_CONF": conf, "PBS_SERVER": "other", "STRATA_MUNGE_SOCKET": "/m.sock"},
			Target{Addr: "other", CAFile: "/etc/site/ca.pem", Munge: "/m.sock"}},
		{"a socket is local", map[string]string{"STRATA_CONF": conf, "STRATA_SOCKET": "/s.sock"},
			Target{Socket: "/s.sock"}},
		{"nothing is the default socket", map[string]string{"STRATA_CONF": filepath.Join(dir, "missing")},
			Target{Socket: DefaultSocket}},
		{"default CA", map[string]string{"STRATA_CONF": "/dev/null", "PBS_SERVER": "h"},
			Target{Addr: "h", CAFile: DefaultCAFile}},
	}
	for _, tc := range cases {
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		if got := ResolveTarget(settings(lookup)); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Over TCP the server names itself: PBS_SERVER is an address, so short
// job ids are completed with the name the server gives.
func TestRemoteSessionAsksServerName(t *testing.T) {
	env := map[string]string{"STRATA_CONF": "/dev/null", "PBS_SERVER": "127.0.0.1:15001"}
	e := &Env{Setting: settings(func(k string) (string, bool) { v, ok := env[k]; return v, ok }),
		LookupEnv: func(string) (string, bool) { return "", false },
		Connect:   func(string) Server { return nil }}
	if s := newSession(e); s.name != "" {
		t.Fatalf("remote session name %q, want it asked from the server", s.name)
	}
	env["STRATA_SOCKET"] = "/s.sock"
	if s := newSession(e); s.name != "127.0.0.1:15001" {
		t.Fatalf("local session name %q", s.name)
	}
}
