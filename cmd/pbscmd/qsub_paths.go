package pbscmd

import (
	"os"
	"path/filepath"
	"strings"
)

// outputPath turns a -o/-e value into host:absolute-path: a relative path
// is taken from the directory qsub runs in, and a path without a host gets
// the submit host, so the server never has to guess.
func outputPath(v, cwd, submitHost string) (host, path string) {
	host, path = submitHost, v
	if i := strings.IndexByte(v, ':'); i > 0 && !strings.Contains(v[:i], "/") {
		host, path = v[:i], v[i+1:]
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return host, path
}

// outputDir is the directory the output file will be created in: the path
// itself when it names a directory (PBS then uses <jobid>.OU), else its
// parent.
func outputDir(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// checkWritable fails when the user cannot create files in dir. OpenPBS
// only finds out when the job ends and the files are lost; Strata refuses
// the job at submission instead.
func checkWritable(env *Env, dir string) error {
	if env.Writable == nil {
		return nil
	}
	if err := env.Writable(dir); err != nil {
		return failErr(1, "cannot write output files to %s: %s", dir, strings.ToLower(errnoText(err)))
	}
	return nil
}
