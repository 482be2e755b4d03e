package pbscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// Server is the part of the server API the PBS commands use. *api.Client
// satisfies it; tests substitute a fake so that layouts and messages can be
// checked without a network.
type Server interface {
	Submit(ctx context.Context, req *api.SubmitRequest, retryFor time.Duration) (string, error)
	Jobs(ctx context.Context, ids []string, history bool) (*api.JobsResponse, error)
	Delete(ctx context.Context, id string, req api.DeleteRequest) error
	Nodes(ctx context.Context) (*api.NodesResponse, error)
	Server(ctx context.Context) (*api.ServerInfo, error)
	Hold(ctx context.Context, id string, req api.HoldRequest) error
	Release(ctx context.Context, id string, req api.HoldRequest) error
	HoldMany(ctx context.Context, ids []string, holds string) ([]error, error)
	ReleaseMany(ctx context.Context, ids []string, holds string) ([]error, error)
	DeleteMany(ctx context.Context, ids []string, req api.DeleteRequest) ([]error, error)
	Alter(ctx context.Context, id string, req *api.AlterRequest) error
	Signal(ctx context.Context, id string, req api.SignalRequest) error
	Move(ctx context.Context, id string, req api.MoveRequest) error
	Rerun(ctx context.Context, id string, req api.RerunRequest) error
	Run(ctx context.Context, id string, req api.RunRequest) error
	MarkNodes(ctx context.Context, req *api.MarkNodesRequest) error
}

var _ Server = (*api.Client)(nil)

// DefaultSocket is where the server listens for local commands.
const DefaultSocket = "/var/run/strata/strata.sock"

// Env is everything a command takes from its process: streams, environment,
// clock, host facts and the way to reach the server. Commands never touch
// os.* directly, so each one runs the same under `qsub`, `strata qsub` and
// in tests.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	LookupEnv func(string) (string, bool)
	Environ   func() []string

	// Connect returns a client for the named server (the name is what
	// connection errors show).
	Connect func(serverName string) Server
	// Setting looks up a client setting: the environment, then the
	// client configuration file (clientconf.go). nil: the environment.
	Setting func(key string) string

	Now      func() time.Time
	Loc      *time.Location
	Hostname func() (string, error)
	Getwd    func() (string, error)
	// System is `uname -s` (PBS_O_SYSTEM).
	System func() string
	// StdinIsTerminal reports whether qsub would wait on a user typing.
	StdinIsTerminal func() bool
	// Writable reports why the user cannot create files in dir, or nil.
	Writable func(dir string) error
}

// OSEnv is the Env of the running process.
func OSEnv() *Env {
	setting := settings(os.LookupEnv)
	return &Env{
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		LookupEnv: os.LookupEnv,
		Environ:   os.Environ,
		Setting:   setting,
		Connect: func(name string) Server {
			return ResolveTarget(setting).Client(name)
		},
		Now:      time.Now,
		Loc:      time.Local,
		Hostname: os.Hostname,
		Getwd:    os.Getwd,
		System:   unameSystem,
		StdinIsTerminal: func() bool {
			fi, err := os.Stdin.Stat()
			return err == nil && fi.Mode()&os.ModeCharDevice != 0
		},
		Writable: func(dir string) error {
			// access(2) answers for the real uid, the user who will own
			// the output files.
			if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
				return err
			}
			return nil
		},
	}
}

// unameSystem returns the kernel name, as `uname -s` prints it.
func unameSystem() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return "Linux"
	}
	var b strings.Builder
	for _, c := range u.Sysname {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// getenv returns an environment variable or "".
func (e *Env) getenv(name string) string {
	v, _ := e.LookupEnv(name)
	return v
}

// session is one command's connection to its server. The server name is
// resolved lazily: a short job id needs it, a plain `qstat` does not.
type session struct {
	env    *Env
	client Server
	name   string // from PBS_DEFAULT/PBS_SERVER, or learnt from the server
}

// setting returns a client setting (environment, then client config).
func (e *Env) setting(name string) string {
	if e.Setting != nil {
		return e.Setting(name)
	}
	return e.getenv(name)
}

// newSession picks the server name from the environment (PBS_DEFAULT wins
// over PBS_SERVER, as in OpenPBS) and connects. Without either variable the
// name is asked from the server when first needed; connection errors then
// name the local host, where the socket is. When PBS_SERVER is the address
// a remote command connects to (no local socket configured), the server
// names itself: host[:port] need not be its name.
func newSession(env *Env) *session {
	name := env.setting("PBS_DEFAULT")
	label := name
	if pbsServer := env.setting("PBS_SERVER"); name == "" && pbsServer != "" {
		label = pbsServer
		if env.Setting == nil || ResolveTarget(env.Setting).Addr == "" {
			name = pbsServer
		}
	}
	if label == "" {
		if h, err := env.Hostname(); err == nil {
			label = h
		}
	}
	return &session{env: env, client: env.Connect(label), name: name}
}

// serverName returns the default server's name, asking the server if the
// environment did not say.
func (s *session) serverName(ctx context.Context) (string, error) {
	if s.name != "" {
		return s.name, nil
	}
	info, err := s.client.Server(ctx)
	if err != nil {
		return "", fmt.Errorf("query server name: %w", err)
	}
	s.name = info.Name
	return s.name, nil
}

// reportConnect prints a connection failure as PBS does and reports whether
// err was one.
func reportConnect(w io.Writer, cmd string, err error) bool {
	var ce *api.ConnectError
	if errors.As(err, &ce) {
		fmt.Fprintf(w, "%s: %s\n", cmd, ce.Error())
		return true
	}
	return false
}
