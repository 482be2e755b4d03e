package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/strata-hpc/strata/"

// pkg is what `go list -json` says about one package of the module, with
// the module prefix taken off every path.
type pkg struct {
	ImportPath string
	Imports    []string // direct, production code
	Deps       []string // transitive, production code
}

// listPackages runs `go list -json ./...` over the whole module (the
// working directory of a test is its package's, so the pattern is relative
// to the module root two levels up).
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "../../...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		p.Imports = local(p.Imports)
		p.Deps = local(p.Deps)
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// local keeps the module's own packages, without the module prefix.
func local(paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, module) {
			out = append(out, strings.TrimPrefix(p, module))
		}
	}
	return out
}

// under reports whether path is root or a package below it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

// rule forbids the packages under From to depend (transitively) on the
// packages under any of Not, except those under Allow.
type rule struct {
	why   string
	from  []string
	not   []string
	allow []string
}

var rules = []rule{
	{
		why:  "the scheduler is a pure function of a snapshot",
		from: []string{"scheduler", "policy"},
		not:  []string{"server", "raftstore", "mom", "hooks"},
	},
	{
		why:  "the FSM is deterministic: no server, no scheduler, no hook processes",
		from: []string{"raftstore"},
		not:  []string{"server", "scheduler", "hooks", "mom"},
	},
	{
		why:   "the agent reaches the server only through server/api",
		from:  []string{"mom"},
		not:   []string{"server", "raftstore", "scheduler"},
		allow: []string{"server/api"},
	},
	{
		why:  "the shared vocabulary depends on nothing of Strata's",
		from: []string{"model"},
		not:  []string{"pki", "raftstore", "server", "scheduler", "policy", "hooks", "mom", "cmd"},
	},
	{
		why:   "the glue between state and scheduler is the cycle's input and output, not the server",
		from:  []string{"server/schedglue"},
		not:   []string{"server", "mom", "hooks"},
		allow: []string{"server/schedglue"},
	},
	{
		why:   "the wire types and client are what commands and agents link",
		from:  []string{"server/api"},
		not:   []string{"server", "raftstore", "scheduler", "hooks", "mom"},
		allow: []string{"server/api"},
	},
	{
		why:   "the PBS commands' binary starts for every qsub: it links the client, not the daemons",
		from:  []string{"cmd/strata-pbs", "cmd/pbscmd"},
		not:   []string{"server", "raftstore", "scheduler", "policy", "hooks", "mom"},
		allow: []string{"server/api"},
	},
}

func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	for _, p := range pkgs {
		for _, r := range rules {
			if !anyUnder(p.ImportPath, r.from) {
				continue
			}
			for _, d := range p.Deps {
				if anyUnder(d, r.not) && !anyUnder(d, r.allow) {
					t.Errorf("%s depends on %s: %s", p.ImportPath, d, r.why)
				}
			}
		}
	}
}

// TestNothingImportsCommands: the cmd packages are leaves. Only the
// binaries assemble them (the multi-call cmd/strata, and cmd/strata-pbs:
// the PBS commands alone); no other package imports one, and no command
// imports a sibling (shared code belongs in a library package such as
// server/api).
func TestNothingImportsCommands(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, d := range p.Imports {
			if !under(d, "cmd") {
				continue
			}
			switch {
			case !under(p.ImportPath, "cmd"):
				t.Errorf("%s imports the command package %s", p.ImportPath, d)
			case p.ImportPath != "cmd/strata" && p.ImportPath != "cmd/strata-pbs":
				t.Errorf("%s imports its sibling %s", p.ImportPath, d)
			}
		}
	}
}

func anyUnder(path string, roots []string) bool {
	for _, r := range roots {
		if under(path, r) {
			return true
		}
	}
	return false
}
