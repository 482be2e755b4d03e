package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/pki"
)

// tlsCommand is `strata tls init|issue`: the cluster PKI
// (docs/security.md).
func tlsCommand() *cli.Command {
	dirFlag := &cli.StringFlag{Name: "dir", Value: ".", Usage: "PKI directory (CA, keys, certificates)"}
	return &cli.Command{
		Name:  "tls",
		Usage: "create the cluster CA and issue server and agent certificates",
		Subcommands: []*cli.Command{
			{
				Name:  "init",
				Usage: "create a cluster CA and a server certificate in --dir (never replaces an existing CA)",
				Flags: []cli.Flag{
					dirFlag,
					&cli.StringSliceFlag{Name: "host", Usage: "extra name or address in the server certificate (repeatable; default: 127.0.0.1, localhost and this host's name)"},
				},
				Action: func(c *cli.Context) error {
					dir := c.String("dir")
					hosts := c.StringSlice("host")
					if len(hosts) == 0 {
						hosts = defaultServerHosts()
					}
					if err := pki.Init(dir, hosts); err != nil {
						if errors.Is(err, pki.ErrExists) {
							return cli.Exit("strata tls init: "+err.Error()+" (issue certificates with strata tls issue; remove the CA first to start over)", 1)
						}
						return cli.Exit("strata tls init: "+err.Error(), 1)
					}
					fmt.Fprintf(c.App.Writer, "created %s, %s and %s in %s\n", pki.CAFile, pki.ServerFile, pki.ServerKeyFile, dir)
					return nil
				},
			},
			{
				Name:  "issue",
				Usage: "issue an agent certificate for --host (or a server certificate with --server), signed by the CA in --dir",
				Flags: []cli.Flag{
					dirFlag,
					&cli.StringSliceFlag{Name: "host", Required: true, Usage: "the agent's host name; with --server, names and addresses of the server (repeatable)"},
					&cli.BoolFlag{Name: "server", Usage: "issue a server certificate (server role)"},
					&cli.BoolFlag{Name: "simulator", Usage: "issue a simulator certificate: strata mom --simulate may speak for hosts --host-NNNNN only (docs/simulate.md)"},
					&cli.StringFlag{Name: "cert", Usage: "certificate file (default: DIR/agent-HOST.pem, or DIR/server-HOST.pem with --server)"},
					&cli.StringFlag{Name: "key", Usage: "key file (default: the certificate's name with -key)"},
				},
				Action: issueAction,
			},
		},
	}
}

func issueAction(c *cli.Context) error {
	dir, hosts := c.String("dir"), c.StringSlice("host")
	role := pki.RoleAgent
	if c.Bool("server") {
		role = pki.RoleServer
	}
	if c.Bool("simulator") {
		role = pki.RoleSimulator
	}
	if c.Bool("server") && c.Bool("simulator") {
		return cli.Exit("strata tls issue: --server and --simulator exclude each other", 2)
	}
	if role != pki.RoleServer && len(hosts) != 1 {
		return cli.Exit("strata tls issue: an agent or simulator certificate is for exactly one --host", 2)
	}
	cert, key := pki.AgentFiles(dir, hosts[0])
	if role == pki.RoleSimulator {
		cert, key = pki.SimulatorFiles(dir, hosts[0])
	}
	if role == pki.RoleServer {
		cert = filepath.Join(dir, "server-"+hosts[0]+".pem")
		key = filepath.Join(dir, "server-"+hosts[0]+"-key.pem")
	}
	if f := c.String("cert"); f != "" {
		cert = f
		key = f[:len(f)-len(filepath.Ext(f))] + "-key.pem"
	}
	if f := c.String("key"); f != "" {
		key = f
	}
	if _, err := pki.Issue(dir, role, hosts, cert, key); err != nil {
		return cli.Exit("strata tls issue: "+err.Error(), 1)
	}
	fmt.Fprintf(c.App.Writer, "issued %s certificate for %s: %s (key %s)\n", role, hosts[0], cert, key)
	return nil
}

// defaultServerHosts are the names a server certificate gets when none
// are given: loopback and this host's name. Agents check the role name
// (server.strata), not these; they help other TLS clients.
func defaultServerHosts() []string {
	hosts := []string{"127.0.0.1", "localhost"}
	if h, err := os.Hostname(); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	return hosts
}
