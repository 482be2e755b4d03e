package shepherd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// outputTarget is one spooled output file and where it goes.
type outputTarget struct {
	spool  string // file name in the job directory
	host   string // destination host ("" or this host: local)
	path   string // destination path on host
	dest   string // the destination as a local path, when it is local
	local  bool   // the destination is on this host (or shared, usecp)
	suffix string // "OU" or "ER", for <jobid>.OU when dest is a directory
	direct bool   // written in place (Keep_Files): nothing to deliver
}

// outputTargets lists the files to deliver. Join_Path "oe" delivers only the
// .o file (stderr was written into it), "eo" only the .e file; stdout comes
// first. Keep_Files "o"/"e" keep the file in the home directory under its
// default name and "d" writes it at its destination, both directly; "d"
// falls back to spooling when the destination is on another host, as in
// PBS (direct write needs the path to be local or usecp-mapped).
func (r *jobRunner) outputTargets() []outputTarget {
	j := r.job
	out := r.target(j.Output, 'o', fileStdout, "OU")
	errT := r.target(j.Error, 'e', fileStderr, "ER")
	switch j.Join {
	case "oe":
		return []outputTarget{out}
	case "eo":
		return []outputTarget{errT}
	}
	return []outputTarget{out, errT}
}

// target resolves one Output_Path/Error_Path: Keep_Files o/e keep the
// stream in the home directory here; otherwise the host part decides
// between this host (its names, or a usecp mapping) and another host.
func (r *jobRunner) target(path string, stream byte, spool, suffix string) outputTarget {
	j := r.job
	t := outputTarget{spool: spool, suffix: suffix}
	if strings.IndexByte(j.Keep, stream) >= 0 || path == "" {
		t.path = filepath.Join(r.id.Home, defaultOutputName(j, stream))
		t.dest, t.local, t.direct = t.path, true, true
		return t
	}
	t.host, t.path = model.SplitHostPath(path)
	if dest, ok, err := r.transferConfig().Route(t.host, t.path); err == nil && ok {
		t.dest, t.local = dest, true
	}
	// /dev/null is written in place like a Keep_Files "d" stream: there is
	// nothing to spool or deliver, and opening it as the user cannot stall
	// (a job with -o /dev/null used to start a transfer helper process).
	t.direct = t.local && (r.direct(stream) || t.dest == os.DevNull)
	return t
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

// deliverOutputs copies every output file to its destination, through
// the transfer helper running as the job's owner (locally, or over SSH
// to another host), and returns a comment describing failures ("" when
// all went well). Undeliverable files are kept under
// <spool>/undelivered/<jobid>.OU|ER.
func (r *jobRunner) deliverOutputs() string {
	var targets []outputTarget
	var files []*os.File
	var items []TransferItem
	var notes []string
	for _, t := range r.outputTargets() {
		if t.direct {
			continue
		}
		f, err := os.Open(filepath.Join(r.dir, t.spool))
		if err != nil {
			notes = append(notes, fmt.Sprintf("Output file could not be delivered: open spooled output: %v", err))
			continue
		}
		defer f.Close()
		items = append(items, TransferItem{Op: OpDeliver, FD: len(files), NameInDir: r.job.ID + "." + t.suffix, Host: t.host, Remote: t.path})
		targets = append(targets, t)
		files = append(files, f)
	}
	if len(items) == 0 {
		return strings.Join(notes, "; ")
	}
	results, err := r.transfer(items, files)
	for i, t := range targets {
		var derr error
		switch {
		case err != nil:
			derr = err
		case results[i].Err != "":
			derr = errors.New(results[i].Err)
		}
		src := filepath.Join(r.dir, t.spool)
		if derr == nil {
			os.Remove(src)
			continue
		}
		where := t.path
		if t.host != "" {
			where = t.host + ":" + t.path
		}
		r.logger.Printf("deliver %s to %s: %v", t.spool, where, derr)
		keep := filepath.Join(r.params.Spool, "undelivered", r.job.ID+"."+t.suffix)
		kept := ""
		if rerr := os.Rename(src, keep); rerr != nil {
			r.logger.Printf("keep undelivered output: %v", rerr)
		} else {
			kept = fmt.Sprintf("; output retained on %s in %s", r.params.Host, keep)
		}
		notes = append(notes, fmt.Sprintf("Output file could not be delivered to %s: %v%s", where, derr, kept))
	}
	return strings.Join(notes, "; ")
}
