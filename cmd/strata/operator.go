package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/pbscmd"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// operatorCommand is `strata operator raft ...|snapshot ...`: membership
// and backups of a multi-server cluster, for managers (docs/ha.md).
func operatorCommand() *cli.Command {
	return &cli.Command{
		Name:  "operator",
		Usage: "Raft membership and state snapshots (managers only)",
		Subcommands: []*cli.Command{
			{
				Name:  "raft",
				Usage: "list, add and remove the servers of the Raft cluster",
				Subcommands: []*cli.Command{
					{Name: "list-peers", Usage: "list the servers and which leads", Action: listPeers},
					{Name: "add-peer", Usage: "add a voting server", Action: addPeer, Flags: []cli.Flag{
						&cli.StringFlag{Name: "id", Required: true, Usage: "the new server's node_id"},
						&cli.StringFlag{Name: "address", Required: true, Usage: "its raft_addr (host:port)"}}},
					{Name: "remove-peer", Usage: "remove a server", Action: removePeer, Flags: []cli.Flag{
						&cli.StringFlag{Name: "id", Usage: "the server's node_id"},
						&cli.StringFlag{Name: "address", Usage: "or its raft_addr"}}},
					{Name: "transfer-leader", Usage: "hand leadership to another server (before maintenance of the leader)", Action: transferLeader, Flags: []cli.Flag{
						&cli.StringFlag{Name: "id", Required: true, Usage: "the node_id of the server to lead"}}},
				},
			},
			{
				Name:  "snapshot",
				Usage: "save the replicated state to a file, or restore it",
				Subcommands: []*cli.Command{
					{Name: "save", Usage: "save FILE", ArgsUsage: "FILE", Action: saveSnapshot},
					{Name: "restore", Usage: "restore FILE (replaces the whole state on every server)", ArgsUsage: "FILE", Action: restoreSnapshot},
				},
			},
		},
	}
}

// operatorClient reaches the servers listed in STRATA_SOCKET.
func operatorClient() *api.Client {
	sock := os.Getenv("STRATA_SOCKET")
	if sock == "" {
		sock = pbscmd.DefaultSocket
	}
	return api.NewUnixClient(sock, os.Getenv("PBS_SERVER"))
}

// operatorErr prints a PBS-style error: the message on stderr and the
// error code's low byte as exit status (Unauthorized Request: 159).
func operatorErr(what string, err error) error {
	var pe *model.PBSError
	if errors.As(err, &pe) {
		return cli.Exit(fmt.Sprintf("strata operator %s: %s", what, pe.Msg), pe.Code&0xff)
	}
	return cli.Exit(fmt.Sprintf("strata operator %s: %v", what, err), 1)
}

func opContext(c *cli.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Context, 2*time.Minute)
}

func listPeers(c *cli.Context) error {
	ctx, cancel := opContext(c)
	defer cancel()
	resp, err := operatorClient().RaftPeers(ctx)
	if err != nil {
		return operatorErr("raft list-peers", err)
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Node\tAddress\tState\tVoter\tAPI\tLevel")
	for _, p := range resp.Peers {
		state := "follower"
		if p.Leader {
			state = "leader"
		}
		level, apiAddr := "?", p.APIAddr
		if p.Level > 0 {
			level = fmt.Sprint(p.Level)
		}
		if apiAddr == "" {
			apiAddr = "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\n", p.ID, p.Address, state, p.Voter, apiAddr, level)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Rolling upgrades (docs/ha.md): the level every voter supports.
	fmt.Fprintf(c.App.Writer, "\nCommand level in use: %d", resp.CommandLevel)
	if len(resp.Behind) > 0 {
		fmt.Fprintf(c.App.Writer, " (newer commands held back: %s)", strings.Join(resp.Behind, "; "))
	}
	fmt.Fprintln(c.App.Writer)
	return nil
}

func addPeer(c *cli.Context) error {
	ctx, cancel := opContext(c)
	defer cancel()
	if err := operatorClient().AddRaftPeer(ctx, api.RaftPeerRequest{ID: c.String("id"), Address: c.String("address")}); err != nil {
		return operatorErr("raft add-peer", err)
	}
	fmt.Fprintf(c.App.Writer, "added %s at %s\n", c.String("id"), c.String("address"))
	return nil
}

func transferLeader(c *cli.Context) error {
	ctx, cancel := opContext(c)
	defer cancel()
	if err := operatorClient().TransferLeadership(ctx, api.RaftPeerRequest{ID: c.String("id")}); err != nil {
		return operatorErr("raft transfer-leader", err)
	}
	fmt.Fprintf(c.App.Writer, "%s leads\n", c.String("id"))
	return nil
}

func removePeer(c *cli.Context) error {
	if c.String("id") == "" && c.String("address") == "" {
		return cli.Exit("strata operator raft remove-peer: give --id or --address", 2)
	}
	ctx, cancel := opContext(c)
	defer cancel()
	if err := operatorClient().RemoveRaftPeer(ctx, api.RaftPeerRequest{ID: c.String("id"), Address: c.String("address")}); err != nil {
		return operatorErr("raft remove-peer", err)
	}
	fmt.Fprintf(c.App.Writer, "removed %s%s\n", c.String("id"), c.String("address"))
	return nil
}

func saveSnapshot(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("usage: strata operator snapshot save FILE", 2)
	}
	ctx, cancel := opContext(c)
	defer cancel()
	data, err := operatorClient().SaveSnapshot(ctx)
	if err != nil {
		return operatorErr("snapshot save", err)
	}
	// 0600: the state holds every job's script and environment.
	if err := os.WriteFile(c.Args().First(), data, 0o600); err != nil {
		return cli.Exit("strata operator snapshot save: "+err.Error(), 1)
	}
	fmt.Fprintf(c.App.Writer, "saved %d bytes to %s\n", len(data), c.Args().First())
	return nil
}

func restoreSnapshot(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("usage: strata operator snapshot restore FILE", 2)
	}
	path := c.Args().First()
	// Opened here, with the caller's own permissions, and streamed: the
	// server never opens a path it is given.
	f, err := os.Open(path)
	if err != nil {
		return cli.Exit("strata operator snapshot restore: "+err.Error(), 1)
	}
	f.Close()
	// Longer than other operator commands: gigabytes may travel.
	ctx, cancel := context.WithTimeout(c.Context, 30*time.Minute)
	defer cancel()
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	if err := operatorClient().RestoreSnapshot(ctx, open); err != nil {
		return operatorErr("snapshot restore", err)
	}
	fmt.Fprintf(c.App.Writer, "restored %s\n", c.Args().First())
	return nil
}
