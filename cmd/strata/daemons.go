package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/server"
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
			out, closeLog, err := logOutput(cfg.LogFile)
			if err != nil {
				return cli.Exit("strata server: "+err.Error(), 1)
			}
			defer closeLog()
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			if err := server.New(cfg, out).Run(ctx); err != nil {
				return cli.Exit("strata server: "+err.Error(), 1)
			}
			return nil
		},
	}
}

func logOutput(path string) (io.Writer, func(), error) {
	if path == "" {
		return os.Stderr, func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("config key log_file: %w", err)
	}
	return f, func() { f.Close() }, nil
}
