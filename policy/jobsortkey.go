package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Special job_sort_key names that read job attributes, not resources.
const (
	JobPriority = "job_priority" // the job's Priority (qsub -p)
	// sortPriorityAlias is the obsolete job_sort_key name for job_priority.
	sortPriorityAlias = "sort_priority"
)

// JobSortKey is one job_sort_key line: "<resource|job_priority> HIGH|LOW".
// A resource key reads the job-wide request (Resource_List: total ncpus,
// mem, walltime in seconds); a job that did not ask for it counts 0.
type JobSortKey struct {
	Name string
	High bool
}

// String prints the key as it is configured.
func (k JobSortKey) String() string {
	if k.High {
		return k.Name + " HIGH"
	}
	return k.Name + " LOW"
}

// ParseJobSortKey parses "<key> HIGH|LOW" (the direction case-insensitive,
// surrounding quotes accepted). A trailing prime/non_prime/all/none word, as
// sched_config allows, is accepted and ignored: Strata has no prime time.
func ParseJobSortKey(s string) (JobSortKey, error) {
	text := strings.TrimSpace(s)
	if len(text) >= 2 && text[0] == '"' {
		if end := strings.LastIndexByte(text, '"'); end > 0 {
			text = text[1:end] + text[end+1:]
		}
	}
	f := strings.Fields(text)
	if len(f) == 3 {
		switch strings.ToLower(f[2]) {
		case "prime", "non_prime", "all", "none":
			f = f[:2]
		}
	}
	// A quote left in the name (`""" HIGH"`) made a key whose String
	// does not parse back (FuzzParseJobSortKey); no resource has one.
	if len(f) != 2 || strings.ContainsRune(f[0], '"') {
		return JobSortKey{}, fmt.Errorf("Invalid job_sort_key %q: want \"<resource|job_priority> HIGH|LOW\"", s)
	}
	k := JobSortKey{Name: f[0]}
	if k.Name == sortPriorityAlias {
		k.Name = JobPriority
	}
	switch strings.ToLower(f[1]) {
	case "high":
		k.High = true
	case "low":
	default:
		return JobSortKey{}, fmt.Errorf("Invalid job_sort_key %q: bad sort order %q (want HIGH or LOW)", s, f[1])
	}
	return k, nil
}

// ParseJobSortKeys parses several job_sort_key lines; later keys break ties.
// With defs, a key that is neither job_priority nor a known resource is an
// error (it would silently sort nothing).
func ParseJobSortKeys(lines []string, defs model.ResourceDefs) ([]JobSortKey, error) {
	out := make([]JobSortKey, 0, len(lines))
	for i, line := range lines {
		k, err := ParseJobSortKey(line)
		if err != nil {
			return nil, fmt.Errorf("job_sort_key %d: %w", i+1, err)
		}
		if _, ok := defs[k.Name]; defs != nil && !ok && k.Name != JobPriority && !IsFairshareVar(k.Name) {
			return nil, fmt.Errorf("job_sort_key %d: unknown resource %q", i+1, k.Name)
		}
		out = append(out, k)
	}
	return out, nil
}

// JobAmount returns a job's job-wide request of a resource as a number:
// consumables summed over the select, others parsed from Resource_List
// (durations in seconds, sizes in bytes); 0 when absent or not numeric.
func JobAmount(j *model.Job, name string, defs model.ResourceDefs) float64 {
	if s, ok := j.ResourceList[name]; ok {
		if d, ok := defs[name]; ok && d.Numeric() {
			if v, err := d.Amount(s); err == nil {
				return v
			}
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
		if v, err := model.ParseDuration(s); err == nil && strings.Contains(s, ":") {
			return float64(v) // walltime without defs at hand
		}
	}
	return j.Select.Total(name)
}
