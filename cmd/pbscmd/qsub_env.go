package pbscmd

import (
	"strings"

	"github.com/strata-hpc/strata/model"
)

// pboVars maps the PBS_O_* variables taken straight from qsub's
// environment, in the order OpenPBS records them. PBS_O_WORKDIR,
// PBS_O_SYSTEM and PBS_O_HOST follow, computed.
var pboVars = []struct{ name, from string }{
	{"PBS_O_HOME", "HOME"},
	{"PBS_O_LANG", "LANG"},
	{"PBS_O_LOGNAME", "LOGNAME"},
	{"PBS_O_PATH", "PATH"},
	{"PBS_O_MAIL", "MAIL"},
	{"PBS_O_SHELL", "SHELL"},
	{"PBS_O_TZ", "TZ"},
}

// jobEnv builds Variable_List: the PBS_O_* values (those whose source is
// set), then the -v variables, then with -V the whole environment. A name
// appears once; the first source to give it wins, so -v overrides -V.
func jobEnv(env *Env, workdir, host, vList string, exportAll bool) ([]model.EnvVar, error) {
	var out []model.EnvVar
	seen := map[string]bool{}
	add := func(n, v string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, model.EnvVar{Name: n, Value: v})
		}
	}
	for _, p := range pboVars {
		if v, ok := env.LookupEnv(p.from); ok {
			add(p.name, v)
		}
	}
	add("PBS_O_WORKDIR", workdir)
	add("PBS_O_SYSTEM", env.System())
	add("PBS_O_HOST", host)
	if vList != "" {
		entries, err := splitQuotedList(vList)
		if err != nil {
			return nil, errIllegalOpt('v')
		}
		for _, e := range entries {
			name, value, hasValue := strings.Cut(e, "=")
			if name == "" {
				return nil, errIllegalOpt('v')
			}
			if !hasValue {
				// A bare name exports qsub's value; an unset one is
				// left out rather than sent empty.
				v, ok := env.LookupEnv(name)
				if !ok {
					continue
				}
				value = v
			}
			add(name, value)
		}
	}
	if exportAll {
		for _, kv := range env.Environ() {
			if n, v, ok := strings.Cut(kv, "="); ok && n != "" {
				add(n, v)
			}
		}
	}
	return out, nil
}
