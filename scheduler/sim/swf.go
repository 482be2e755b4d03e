package sim

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// TraceJob is one SWF record, after the archive's conventions are applied.
type TraceJob struct {
	ID      int64
	Submit  int64
	Run     int64 // actual run time, capped at ReqTime
	ReqTime int64 // the user's estimate (walltime)
	Procs   int
	// User and Group are the SWF user and group ids (-1: unknown), for
	// fairshare (fairshare.go).
	User, Group int64
	// Capped is set when the recorded run time exceeded the request: the
	// job was killed at its walltime, so it runs ReqTime here.
	Capped bool
}

// Trace is a parsed SWF file.
type Trace struct {
	MaxNodes, MaxProcs int
	Jobs               []TraceJob
	// Dropped counts records left out, by reason.
	Dropped map[string]int
}

// ReadFile reads an SWF file, gzip-compressed when its name ends in .gz.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	tr, err := Parse(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}

// Parse reads SWF: header lines start with ';' (MaxNodes and MaxProcs are
// read from them), job lines have 18 fields, -1 means unknown.
//
// Conventions (Parallel Workloads Archive and common simulators):
//   - processors: req_procs when known, else alloc_procs (CTC and the
//     Lublin model leave req_procs -1); records with neither are dropped;
//   - run time: records with run < 0 (cancelled before they started) are
//     dropped; run 0 is kept;
//   - requested time: when unknown (-1 or 0, as in the Lublin trace) the
//     run time is the request; a run longer than the request is capped at
//     it (the job was killed at its walltime).
func Parse(r io.Reader) (*Trace, error) {
	tr := &Trace{Dropped: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	var f [18]int64
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if text[0] == ';' {
			tr.header(text[1:])
			continue
		}
		fields := strings.Fields(text)
		if len(fields) < 18 {
			return nil, fmt.Errorf("line %d: %d fields, want 18", line, len(fields))
		}
		for i := 0; i < 18; i++ {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d field %d: %v", line, i+1, err)
			}
			f[i] = int64(v)
		}
		j := TraceJob{ID: f[0], Submit: f[1], Run: f[3], ReqTime: f[8], Procs: int(f[7]), User: f[11], Group: f[12]}
		if j.Procs <= 0 {
			j.Procs = int(f[4])
		}
		switch {
		case j.Procs <= 0:
			tr.Dropped["no processor count"]++
			continue
		case j.Run < 0:
			tr.Dropped["run time unknown (cancelled before start)"]++
			continue
		case j.Submit < 0:
			tr.Dropped["submit time unknown"]++
			continue
		}
		if j.ReqTime <= 0 {
			j.ReqTime = j.Run
		}
		if j.Run > j.ReqTime {
			j.Run, j.Capped = j.ReqTime, true
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return tr, nil
}

// header reads "MaxNodes: 128" and "MaxProcs: 128".
func (tr *Trace) header(s string) {
	k, v, ok := strings.Cut(s, ":")
	if !ok {
		return
	}
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return
	}
	switch strings.TrimSpace(k) {
	case "MaxNodes":
		tr.MaxNodes = n
	case "MaxProcs":
		tr.MaxProcs = n
	}
}
