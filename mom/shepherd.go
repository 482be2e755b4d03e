package mom

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/strata-hpc/strata/mom/shepherd"
)

// Shepherd modes, the first argument of ShepherdMain.
const (
	shepherdRun     = "run"     // run <jobdir>: supervise one job
	shepherdDeliver = "deliver" // deliver <dst> <name-in-dir>: copy stdin to dst as the user
	// transfer: copy job files as the user (stage_helper.go); the
	// request on stdin, the results on stdout.
	shepherdTransfer = "transfer"
)

// ShepherdMain is the entry point of the hidden "strata mom-shepherd"
// subcommand: the helpers a shepherd starts as the job's owner (transfer,
// and deliver for shepherds of the previous release), and the shepherd
// itself (run). args are the arguments after the subcommand. It returns
// the process exit status.
func ShepherdMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "mom-shepherd: missing mode")
		return 2
	}
	switch {
	case args[0] == shepherdRun && len(args) == 2:
		// The agent starts the small strata-shepherd executable
		// (cmd/strata-shepherd); this mode stays for the tests and for
		// an agent of the previous release still running when strata
		// is replaced (its records have launch.json and no identity,
		// which shepherd.Run reads too).
		return shepherd.Run(args[1], os.Stdin)
	case args[0] == shepherdDeliver && len(args) == 3:
		return deliverMain(args[1], args[2], os.Stdin)
	case args[0] == shepherdTransfer && len(args) == 1:
		return transferMain(os.Stdin, os.Stdout)
	}
	fmt.Fprintf(os.Stderr, "mom-shepherd: bad arguments %q\n", args)
	return 2
}

// deliverMain runs as the job's owner: it copies src (stdin, opened by the
// shepherd) to dst, creating or truncating it with the user's permissions.
// Delivery now goes through the transfer helper; this mode stays for
// shepherds started by the previous release, which re-execute the
// (upgraded) binary to deliver.
// When dst is a directory the file is named nameInDir inside it (qsub -o
// naming a directory). Errors go to stderr, which the shepherd puts in the
// job's comment.
func deliverMain(dst, nameInDir string, src io.Reader) int {
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		dst = filepath.Join(dst, nameInDir)
	}
	// 0666 less the umask the shepherd started this helper with: the
	// job's (-W umask, default 077).
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "write %s: %v\n", dst, err)
		return 1
	}
	return 0
}
