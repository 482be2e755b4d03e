package benchcmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The Slurm peer is optional: a checkout of the project's shared tree next
// to the repository (../shared/peers/slurm) or STRATA_SLURM_PEER. Strata
// never needs it; the bench runs it, when present, so that each ratio is
// against Slurm measured in the same run on the same machine.

// slurmPeer returns the peer's directory, or "" when there is none.
func slurmPeer(flag string) string {
	cands := []string{flag, os.Getenv("STRATA_SLURM_PEER"), filepath.Join("..", "shared", "peers", "slurm")}
	for _, d := range cands {
		if d == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(d, "bench.sh")); err == nil && !st.IsDir() {
			abs, err := filepath.Abs(d)
			if err == nil {
				return abs
			}
		}
	}
	return ""
}

// slurmFigures are the peer's medians of one bench.sh run.
type slurmFigures struct {
	A1, A8, B float64 // jobs/s
	C         float64 // ms
	Lines     []string
}

// runSlurm runs the peer's bench.sh for a1 a8 b c with the given sizes and
// parses its one-line-per-figure output. The peer brings its cluster up and
// down itself (down.sh stops only what its up.sh started).
func runSlurm(dir string, runs, aJobs, bJobs, cSamples int) (*slurmFigures, error) {
	out, err := os.MkdirTemp("", "strata-bench-slurm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	cmd := exec.Command(filepath.Join(dir, "bench.sh"), "a1", "a8", "b", "c")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"SB_REPS="+strconv.Itoa(runs), "SB_B_REPS="+strconv.Itoa(runs),
		"SB_A_JOBS="+strconv.Itoa(aJobs), "SB_B_JOBS="+strconv.Itoa(bJobs),
		"SB_C_SAMPLES="+strconv.Itoa(cSamples), "SB_OUT="+out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("slurm bench.sh: %v: %s", err, lastLines(stderr.String(), 5))
	}
	f := &slurmFigures{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) < 4 || fields[2] != "median" {
			continue
		}
		v, err := strconv.ParseFloat(fields[3], 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "a1":
			f.A1 = v
		case "a8":
			f.A8 = v
		case "b":
			f.B = v
		case "c":
			f.C = v
		default:
			continue
		}
		f.Lines = append(f.Lines, line)
	}
	if f.A1 == 0 || f.A8 == 0 || f.B == 0 || f.C == 0 {
		return f, fmt.Errorf("slurm bench.sh printed no value for some figures: %q", stdout.String())
	}
	return f, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
