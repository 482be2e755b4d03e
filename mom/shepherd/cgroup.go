package shepherd

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Job containment with cgroups. Every job runs in its own cgroup,
// <root>/strata/<agent>/job-<jobid>.<run>, so that walltime, qdel and the
// end of the job can kill every process the job started, whatever it did
// with setsid or double forks (the process group alone does not hold such
// processes). <agent> is the host name plus a hash of the spool directory:
// several agents of one host (local clusters, tests) never share a subtree,
// and the path is derived from configuration, not from memory, so a
// restarted agent or a reattached shepherd finds it again.

// Cgroup modes ([cgroups] mode).
const (
	CgroupAuto = "auto"
	CgroupV1   = "v1"
	CgroupV2   = "v2"
	CgroupOff  = "off"
)

// cgroupV1Controllers are the v1 hierarchies a job cgroup is created in.
// freezer makes the kill race-free, pids and the others list the job's
// processes, memory and cpuacct give usage and the memory limit, cpuset
// confines the job to its cpus (only when enforce_cpus is on).
var cgroupV1Controllers = []string{"freezer", "pids", "memory", "cpuacct", "cpuset"}

// CgroupConfig is the [cgroups] table of the agent configuration.
type CgroupConfig struct {
	// Mode is auto, v1, v2 or off. auto prefers the v1 controllers when
	// they are mounted (hybrid layouts keep the controllers there) and v2
	// otherwise. TOML: mode (or enable = false for off).
	Mode string
	// Root is the cgroup path, inside each hierarchy, under which the
	// agent's subtree strata/<agent> is made. Default: the cgroup the agent
	// runs in. TOML: root.
	Root string
	// EnforceMem limits the job's memory to its mem on this host.
	// TOML: enforce_mem.
	EnforceMem bool
	// EnforceCpus confines the job to as many cpus as its ncpus on this
	// host (cpuset). TOML: enforce_cpus.
	EnforceCpus bool
}

// CgroupLayout is where this agent's job cgroups live. It is written into
// each run's launch.json, so the shepherd (also after an agent restart)
// knows where its job's cgroup is.
type CgroupLayout struct {
	Mode string `json:"mode"` // cgroupV1 or cgroupV2
	// Dirs maps a controller to the agent's directory in its hierarchy;
	// v2 has the single key "".
	Dirs        map[string]string `json:"dirs"`
	EnforceMem  bool              `json:"enforce_mem,omitempty"`
	EnforceCpus bool              `json:"enforce_cpus,omitempty"`
	// Mounts are the v1 hierarchies' mounts, by controller: a shepherd
	// finds its own cgroup (to return to after placing the job) from
	// /proc/self/cgroup alone instead of parsing the mount table at each
	// job. Absent in the records of earlier releases.
	Mounts map[string]CgroupMount `json:"mounts,omitempty"`
}

// CgroupMount is where a cgroup hierarchy is mounted: Point shows the
// hierarchy's subtree Root.
type CgroupMount struct {
	Root  string `json:"root"`
	Point string `json:"point"`
}

// mount is one cgroup file system mount from /proc/self/mountinfo.
type cgMount struct {
	root, point string
	v2          bool
	controllers []string // v1 only
}

// readCgroupMounts parses mountinfo for cgroup and cgroup2 mounts.
func readCgroupMounts(mountinfo string) ([]cgMount, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []cgMount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		m := cgMount{root: unescapeMount(pf[3]), point: unescapeMount(pf[4])}
		switch qf[0] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			for _, o := range strings.Split(qf[2], ",") {
				if o != "rw" && o != "ro" && !strings.Contains(o, "=") {
					m.controllers = append(m.controllers, o)
				}
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range []byte(s[i+1 : i+4]) {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + (c - '0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readProcCgroups parses /proc/self/cgroup: controller -> path, with the
// v2 path under "".
func readProcCgroups(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// agentCgroupName is the agent's directory name under strata/.
func agentCgroupName(host, spoolDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(spoolDir)))
	return host + "-" + hex.EncodeToString(sum[:4])
}

// CgroupSources are the files the layout is detected from (tests of the
// parser use others).
type CgroupSources struct {
	mountinfo, procCgroup string
}

var DefaultCgroupSources = CgroupSources{mountinfo: "/proc/self/mountinfo", procCgroup: "/proc/self/cgroup"}

// SetupCgroups detects the layout, creates the agent's subtree and returns
// it; nil with an error saying why when jobs cannot be put in cgroups.
func SetupCgroups(cfg CgroupConfig, host, spoolDir string, src CgroupSources) (*CgroupLayout, error) {
	if cfg.Mode == CgroupOff {
		return nil, fmt.Errorf("disabled by [cgroups] mode = \"off\"")
	}
	mounts, err := readCgroupMounts(src.mountinfo)
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	own, err := readProcCgroups(src.procCgroup)
	if err != nil {
		return nil, fmt.Errorf("read own cgroup: %w", err)
	}
	name := agentCgroupName(host, spoolDir)
	var v1 []cgMount
	var v2 *cgMount
	for i, m := range mounts {
		switch {
		case m.v2 && v2 == nil:
			v2 = &mounts[i]
		case !m.v2:
			v1 = append(v1, m)
		}
	}
	mode := cfg.Mode
	if mode == "" || mode == CgroupAuto {
		mode = CgroupV2
		for _, m := range v1 {
			if containsStr(m.controllers, "freezer") || containsStr(m.controllers, "memory") {
				mode = CgroupV1
			}
		}
	}
	l := &CgroupLayout{Mode: mode, Dirs: map[string]string{}, EnforceMem: cfg.EnforceMem, EnforceCpus: cfg.EnforceCpus}
	switch mode {
	case CgroupV2:
		if v2 == nil {
			return nil, fmt.Errorf("no cgroup2 file system is mounted")
		}
		dir := hierarchyDir(*v2, cfg.Root, own[""])
		d, err := makeAgentCgroup(dir, name, "")
		if err != nil {
			return nil, err
		}
		l.Dirs[""] = d
	case CgroupV1:
		var errs []string
		for _, c := range cgroupV1Controllers {
			if c == "cpuset" && !cfg.EnforceCpus {
				continue // an unconfined cpuset adds setup and nothing else
			}
			for _, m := range v1 {
				if !containsStr(m.controllers, c) || hasDirFor(l, m) {
					continue
				}
				dir := hierarchyDir(m, cfg.Root, own[c])
				d, err := makeAgentCgroup(dir, name, c)
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				l.Dirs[c] = d
				if l.Mounts == nil {
					l.Mounts = map[string]CgroupMount{}
				}
				l.Mounts[c] = CgroupMount{Root: m.root, Point: m.point}
			}
		}
		if len(l.Dirs) == 0 {
			if len(errs) > 0 {
				return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
			}
			return nil, fmt.Errorf("no cgroup v1 controller among %s is mounted", strings.Join(cgroupV1Controllers, ", "))
		}
	default:
		return nil, fmt.Errorf("unknown mode %q", mode)
	}
	return l, nil
}

// hasDirFor reports whether a co-mounted controller of m already has a
// directory (cpu,cpuacct mounted together are one hierarchy).
func hasDirFor(l *CgroupLayout, m cgMount) bool {
	for _, c := range m.controllers {
		if _, ok := l.Dirs[c]; ok {
			return true
		}
	}
	return false
}

// hierarchyDir is the directory of root (default: own, the agent's cgroup)
// in the mount m.
func hierarchyDir(m cgMount, root, own string) string {
	p := root
	if p == "" {
		p = own
	}
	if m.root != "/" {
		// A namespaced mount shows only the subtree below m.root.
		p = strings.TrimPrefix(p, m.root)
	}
	return filepath.Join(m.point, filepath.Clean("/"+p))
}

// makeAgentCgroup creates <dir>/strata/<name> and checks it is usable.
func makeAgentCgroup(dir, name, controller string) (string, error) {
	top := filepath.Join(dir, "strata")
	agent := filepath.Join(top, name)
	for _, d := range []string{top, agent} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("create %s: %w", d, err)
		}
		switch controller {
		case "cpuset":
			// A v1 cpuset without cpus and mems cannot hold a task.
			if err := inheritCpuset(d); err != nil {
				return "", err
			}
		case "":
			// v2: pass the controllers the parent has on to the jobs; this
			// fails harmlessly where the parent holds processes.
			enableV2Controllers(d)
		}
	}
	if _, err := os.Stat(filepath.Join(agent, "cgroup.procs")); err != nil {
		return "", fmt.Errorf("%s is not a cgroup: %w", agent, err)
	}
	return agent, nil
}

// enableV2Controllers writes +memory, +cpuset, +cpu and +pids to the
// subtree_control of dir's parent and of dir where available.
func enableV2Controllers(dir string) {
	for _, d := range []string{filepath.Dir(dir), dir} {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.controllers"))
		if err != nil {
			continue
		}
		for _, c := range strings.Fields(string(b)) {
			switch c {
			case "memory", "cpuset", "cpu", "pids":
				_ = os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+"+c), 0o644)
			}
		}
	}
}

// inheritCpuset copies cpuset.cpus and cpuset.mems from the parent when
// dir has none.
func inheritCpuset(dir string) error {
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		cur, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return fmt.Errorf("read %s: %w", f, err)
		}
		if strings.TrimSpace(string(cur)) != "" {
			continue
		}
		parent, err := os.ReadFile(filepath.Join(filepath.Dir(dir), f))
		if err != nil {
			return fmt.Errorf("read parent %s: %w", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), parent, 0o644); err != nil {
			return fmt.Errorf("set %s in %s: %w", f, dir, err)
		}
	}
	return nil
}

// Describe is the layout for the agent's start line.
func (l *CgroupLayout) Describe() string {
	keys := slices.Sorted(maps.Keys(l.Dirs))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "" {
			parts = append(parts, l.Dirs[k])
		} else {
			parts = append(parts, k+"="+l.Dirs[k])
		}
	}
	sort.Strings(parts)
	return fmt.Sprintf("cgroup %s: %s", l.Mode, strings.Join(parts, " "))
}

// RemoveAgentCgroup removes the agent's subtree when no job cgroup is
// left (agent shutdown); busy directories stay.
func (l *CgroupLayout) RemoveAgentCgroup() {
	for _, d := range l.Dirs {
		_ = os.Remove(d)
		_ = os.Remove(filepath.Dir(d)) // strata/, when no other agent uses it
	}
}

// FileHasWord tells whether a file's white-space separated words include w.
func FileHasWord(path, w string) bool {
	b, err := os.ReadFile(path)
	return err == nil && containsStr(strings.Fields(string(b)), w)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CanLimitMem tells whether job cgroups get a memory controller.
func (l *CgroupLayout) CanLimitMem() bool {
	if l.Mode == CgroupV2 {
		return FileHasWord(filepath.Join(l.Dirs[""], "cgroup.subtree_control"), "memory")
	}
	return l.Dirs["memory"] != ""
}

// CanConfineCPUs tells whether job cgroups get a cpuset controller.
func (l *CgroupLayout) CanConfineCPUs() bool {
	if l.Mode == CgroupV2 {
		return FileHasWord(filepath.Join(l.Dirs[""], "cgroup.subtree_control"), "cpuset")
	}
	return l.Dirs["cpuset"] != ""
}
