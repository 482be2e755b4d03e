package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/mom"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server"
	"github.com/strata-hpc/strata/server/api"
)

// serverCommand is `strata server --config FILE`.
func serverCommand() *cli.Command {
	return &cli.Command{
		Name:  "server",
		Usage: "run a Strata server (Raft member, API, and when leader the scheduler)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "config", Usage: "server TOML configuration file"}},
		Action: func(c *cli.Context) error {
			cfg, err := server.LoadConfig(c.String("config"))
			if err != nil {
				return cli.Exit("strata server: "+err.Error(), 1)
			}
			logger, closeLog, err := serverLogger(cfg.LogFile)
			if err != nil {
				return cli.Exit("strata server: "+err.Error(), 1)
			}
			defer closeLog()
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			defer startProfiles("server")() // profile.go
			if err := server.NewWithLogger(cfg, logger).Run(ctx); err != nil {
				return cli.Exit("strata server: "+err.Error(), 1)
			}
			return nil
		},
	}
}

// serverLogger logs to log_file when set, else to stderr (the journal
// under systemd: see journal.go).
func serverLogger(path string) (*log.Logger, func(), error) {
	if path == "" {
		return daemonLogger(), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("config key log_file: %w", err)
	}
	return log.New(f, "", log.LstdFlags|log.Lmicroseconds), func() { f.Close() }, nil
}

// momCommand is `strata mom --config FILE`, the node agent.
func momCommand() *cli.Command {
	return &cli.Command{
		Name:  "mom",
		Usage: "run the node agent: register vnodes, run jobs, report back",
		Flags: append([]cli.Flag{&cli.StringFlag{Name: "config", Usage: "agent TOML configuration file"}}, simulateFlags()...),
		Action: func(c *cli.Context) error {
			cfg, err := mom.LoadConfig(c.String("config"))
			if err != nil {
				return cli.Exit("strata mom: "+err.Error(), 1)
			}
			if c.IsSet("simulate") {
				return runSimulator(c, cfg) // simulate.go
			}
			logger := daemonLogger()
			certs, err := agentCerts(cfg)
			if err != nil {
				return cli.Exit("strata mom: "+err.Error(), 1)
			}
			client := api.NewTCPClient(cfg.Server, certs)
			agent, err := mom.New(cfg, client, logger)
			if err != nil {
				return cli.Exit("strata mom: "+err.Error(), 1)
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			defer startProfiles("mom")() // profile.go
			mom.OneProc()
			if err := agent.Run(ctx); err != nil && ctx.Err() == nil {
				return cli.Exit("strata mom: "+err.Error(), 1)
			}
			return nil
		},
	}
}

// agentCerts loads the agent's certificate and checks it is an agent
// certificate for this host: the server would refuse every request of an
// agent that reports another host, so say it at start.
func agentCerts(cfg *mom.Config) (*pki.Source, error) {
	certs, err := pki.NewSource(cfg.TLS)
	if err != nil {
		return nil, err
	}
	role, host := pki.RoleOf(certs.Leaf())
	if role != pki.RoleAgent || host != cfg.Host {
		return nil, fmt.Errorf("tls.cert_file %s: certificate is for %s %q, but this agent is host %q (issue one with strata tls issue --host %s)",
			cfg.TLS.Cert, role, host, cfg.Host, cfg.Host)
	}
	return certs, nil
}

// shepherdCommand is the hidden per-job supervisor the agent starts.
func shepherdCommand() *cli.Command {
	return &cli.Command{
		Name:            "mom-shepherd",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			if code := mom.ShepherdMain(c.Args().Slice()); code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
}
