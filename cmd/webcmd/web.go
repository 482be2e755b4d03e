// Package webcmd is `strata web`: a login link to the server's web page.
package webcmd

import (
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/server/api"
)

// Command returns `strata web`. connect opens the client for a server name
// (the PBS commands' connection: the Unix socket with peer credentials,
// or MUNGE from a login host), so the link is minted for the user the
// server authenticated, never for a name given on the command line.
func Command(connect func(name string) *api.Client) *cli.Command {
	return &cli.Command{
		Name:  "web",
		Usage: "the server's read-only web page (docs/observability.md)",
		Subcommands: []*cli.Command{{
			Name:  "login",
			Usage: "print a one-time link that opens the page as you (valid 2 minutes; the session it starts lasts 30 minutes)",
			Flags: []cli.Flag{&cli.StringFlag{Name: "job", Usage: "open this job's detail (qstat -f, tracejob)"}},
			Action: func(c *cli.Context) error {
				resp, err := connect(os.Getenv("PBS_SERVER")).WebLogin(c.Context)
				if err != nil {
					return cli.Exit("strata web login: "+err.Error(), 1)
				}
				link := resp.URL
				if job := c.String("job"); job != "" {
					link += "&job=" + url.QueryEscape(job)
				}
				fmt.Fprintln(c.App.Writer, link)
				fmt.Fprintf(c.App.ErrWriter, "Open the link above as %s before %s; it works once. The page without login: %s\n",
					resp.User, time.Unix(resp.Expires, 0).Format("15:04:05"), resp.Page)
				return nil
			},
		}},
	}
}
