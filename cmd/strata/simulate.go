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
	"github.com/strata-hpc/strata/server/api"
)

// simulateFlags are `strata mom --simulate N` and its shape (docs/simulate.md).
func simulateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "simulate", Usage: "simulate `N` hosts <host>-00001.. from this process (needs a simulator certificate for the config's host, the prefix)"},
		&cli.Float64Flag{Name: "sim-speed", Value: 1, Usage: "speed factor: virtual durations (runtimes, provisioning) are divided by it"},
		&cli.DurationFlag{Name: "sim-runtime", Usage: "runtime of a job with neither " + mom.SimRuntimeVar + " nor a walltime"},
		&cli.DurationFlag{Name: "sim-prov-time", Value: mom.DefaultSimProvTime, Usage: "how long a simulated provision hook runs"},
		&cli.Float64Flag{Name: "sim-prov-fail", Usage: "probability (0..1) that a simulated provision hook fails (exit 2)"},
		&cli.BoolFlag{Name: "sim-prov-reboot", Usage: "simulate OS provisioning: exit 0, then register again with a new boot id and the AOE"},
		&cli.DurationFlag{Name: "sim-reboot-time", Value: mom.DefaultSimRebootTime, Usage: "how long a simulated reboot takes"},
		&cli.Uint64Flag{Name: "sim-seed", Value: 1, Usage: "seed of the simulated failures"},
	}
}

// runSimulator is `strata mom --config FILE --simulate N`.
func runSimulator(c *cli.Context, cfg *mom.Config) error {
	certs, err := pki.NewSource(cfg.TLS)
	if err != nil {
		return cli.Exit("strata mom: "+err.Error(), 1)
	}
	if role, prefix := pki.RoleOf(certs.Leaf()); role != pki.RoleSimulator || prefix != cfg.Host {
		return cli.Exit(fmt.Sprintf("strata mom: tls.cert_file %s: certificate is for %s %q; --simulate needs a simulator certificate for prefix %q (strata tls issue --simulator --host %s)",
			cfg.TLS.Cert, role, prefix, cfg.Host, cfg.Host), 1)
	}
	opts := mom.SimOptions{
		Hosts: c.Int("simulate"), Speed: c.Float64("sim-speed"), Runtime: c.Duration("sim-runtime"),
		ProvTime: c.Duration("sim-prov-time"), ProvFail: c.Float64("sim-prov-fail"),
		ProvReboot: c.Bool("sim-prov-reboot"), ProvRebootTime: c.Duration("sim-reboot-time"), Seed: c.Uint64("sim-seed"),
	}
	logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
	sim, err := mom.NewSimulator(cfg, opts, api.NewTCPClient(cfg.Server, certs), logger)
	if err != nil {
		return cli.Exit("strata mom: "+err.Error(), 2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	defer startProfiles("simulator")() // profile.go
	logger.Printf("simulating %d hosts %s-... against %s", opts.Hosts, cfg.Host, cfg.Server)
	return sim.Run(ctx)
}
