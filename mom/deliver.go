package mom

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// outputTarget is one spooled output file and where it goes.
type outputTarget struct {
	spool  string // file name in the job directory
	dest   string // destination path on this host
	suffix string // "OU" or "ER", for <jobid>.OU when dest is a directory
	direct bool   // written in place (Keep_Files): nothing to deliver
}

// outputTargets lists the files to deliver. Join_Path "oe" delivers only the
// .o file (stderr was written into it), "eo" only the .e file; stdout comes
// first. Keep_Files "o"/"e" keep the file in the home directory under its
// default name and "d" writes it at its destination, both directly.
func (r *jobRunner) outputTargets() []outputTarget {
	j := r.job
	out := outputTarget{spool: fileStdout, dest: r.destination(j.Output, 'o'), suffix: "OU", direct: r.direct('o')}
	errT := outputTarget{spool: fileStderr, dest: r.destination(j.Error, 'e'), suffix: "ER", direct: r.direct('e')}
	switch j.Join {
	case "oe":
		return []outputTarget{out}
	case "eo":
		return []outputTarget{errT}
	}
	return []outputTarget{out, errT}
}

// destination strips the host part of an Output_Path/Error_Path (Strata
// delivers on the execution host, whose file systems are assumed shared) and
// applies Keep_Files.
func (r *jobRunner) destination(path string, stream byte) string {
	j := r.job
	if strings.IndexByte(j.Keep, stream) >= 0 || path == "" {
		return filepath.Join(r.id.Home, defaultOutputName(j, stream))
	}
	if host, p, ok := strings.Cut(path, ":"); ok && !strings.Contains(host, "/") {
		path = p
	}
	return path
}

// defaultOutputName is <Job_Name>.o<seq> (".o<seq>.<index>" for subjobs).
func defaultOutputName(j *model.Job, stream byte) string {
	seq, _, _ := strings.Cut(j.ID, ".")
	if base, idx, ok := strings.Cut(seq, "["); ok {
		seq = base + "." + strings.TrimSuffix(idx, "]")
	}
	name := j.Name
	if name == "" {
		name = "STDIN"
	}
	return name + "." + string(stream) + seq
}

// deliverOutputs copies every output file to its destination and returns a
// comment describing failures ("" when all went well). Undeliverable files
// are kept under <spool>/undelivered/<jobid>.OU|ER.
func (r *jobRunner) deliverOutputs() string {
	var notes []string
	for _, t := range r.outputTargets() {
		if t.direct {
			continue
		}
		src := filepath.Join(r.dir, t.spool)
		err := r.deliverOne(src, t)
		if err == nil {
			os.Remove(src)
			continue
		}
		r.logger.Printf("deliver %s to %s: %v", t.spool, t.dest, err)
		keep := filepath.Join(r.params.Spool, "undelivered", r.job.ID+"."+t.suffix)
		if rerr := os.Rename(src, keep); rerr != nil {
			r.logger.Printf("keep undelivered output: %v", rerr)
		}
		notes = append(notes, fmt.Sprintf("Output file could not be delivered: %v", err))
	}
	return strings.Join(notes, "; ")
}

// deliverOne writes the spool file to its destination, opened with the
// user's file-system identity (openDirect: fsuid, fsgid and groups of a
// thread of its own), so the user's permissions decide what may be written
// (a root shepherd must not follow a user's symlink onto /etc/passwd).
// This used to start a helper process per file; in-process it costs
// a thread instead of two Go process start-ups per job.
func (r *jobRunner) deliverOne(src string, t outputTarget) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open spooled output: %w", err)
	}
	defer in.Close()
	out, err := r.openDirect(t)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", t.dest, err)
	}
	return nil
}
