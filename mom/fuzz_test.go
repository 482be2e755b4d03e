package mom

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
)

// FuzzLoadConfig checks the agent's TOML configuration: a file either
// fails with an error or gives a configuration that validates, whose
// builtin sizes and counts are canonical. (Resource names are checked by
// the server, which accepts only resources defined with qmgr.)
func FuzzLoadConfig(f *testing.F) {
	const tls = "[tls]\nca_file = \"/etc/strata/tls/ca.pem\"\ncert_file = \"/etc/strata/tls/a.pem\"\nkey_file = \"/etc/strata/tls/a-key.pem\"\n"
	for _, s := range []string{
		"server = \"127.0.0.1:15001\"\nhost = \"node01\"\nkill_delay = \"3s\"\n" + tls + "[resources]\nncpus = 16\nmem = \"64GB\"\naoe = [\"rhel8\", \"sles15\"]\nfast_disk = true\nspeed = 2.5\n",
		"server = \"a:1\"\n" + tls + "[[vnode]]\nname = \"n1[0]\"\nsharing = \"default_excl\"\n[vnode.resources]\nncpus = 4\n",
		"server = \"a:1\"\nheartbeat_interval = \"-1s\"\n" + tls, "server = \"a:1\"\n" + tls + "[resources]\nmem = 1.5\n",
		"server = \"a:1\"\n" + tls + "[resources]\n\"a:b\" = 1\n", "bogus = 1\n", "[[", "server = \"a:1\"\n" + tls + "[resources]\nspeed = nan\n",
		"server = \"a:1\"\nsecret = \"retired\"\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "mom.toml")
	f.Fuzz(func(t *testing.T, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var cfg *Config
		var err error
		fuzzcheck.Bounded(t, len(text), func() { cfg, err = LoadConfig(path) })
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%q loads but does not validate: %v", text, err)
		}
		check := func(where string, res map[string]string) {
			for k, v := range res {
				if def, ok := model.BuiltinResources()[k]; ok && def.Numeric() {
					if norm, err := def.Normalize(v); err != nil || norm != v {
						t.Fatalf("%q: %s: %s = %q is not canonical (%q, %v)", text, where, k, v, norm, err)
					}
				}
			}
		}
		check("resources", cfg.Resources)
		for _, v := range cfg.Vnodes {
			check("vnode "+v.Name, v.Resources)
		}
	})
}
