package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Array substates (job_state B and X).
const (
	SubExpired    = 69 // X: a finished subjob kept as history
	SubArrayBegun = 70 // B: at least one subjob has started
)

// DefaultMaxArraySize is max_array_size when the server has none set.
const DefaultMaxArraySize = 10000

// Span is an inclusive run of ordinals [Lo, Hi].
type Span struct {
	Lo int64 `json:"lo"`
	Hi int64 `json:"hi"`
}

// IndexSet is a set of array ordinals (0 for the first index submitted, 1
// for the next, ...) kept as sorted, disjoint, non-adjacent spans. A
// million queued subjobs is one span, so an array costs the same to store
// and replicate whatever its size.
type IndexSet []Span

// Count is the number of ordinals in the set.
func (s IndexSet) Count() int64 {
	var n int64
	for _, sp := range s {
		n += sp.Hi - sp.Lo + 1
	}
	return n
}

// Contains reports whether ordinal o is in the set.
func (s IndexSet) Contains(o int64) bool {
	for _, sp := range s {
		if o < sp.Lo {
			return false
		}
		if o <= sp.Hi {
			return true
		}
	}
	return false
}

// Add returns the set with [lo, hi] added. The receiver is not modified:
// sets are shared with readers of the state store.
func (s IndexSet) Add(lo, hi int64) IndexSet {
	if lo > hi {
		return s
	}
	out := make(IndexSet, 0, len(s)+1)
	i := 0
	for ; i < len(s) && s[i].Hi < lo-1; i++ {
		out = append(out, s[i])
	}
	for ; i < len(s) && s[i].Lo <= hi+1; i++ {
		lo, hi = min(lo, s[i].Lo), max(hi, s[i].Hi)
	}
	out = append(out, Span{lo, hi})
	return append(out, s[i:]...)
}

// AddSet returns the union of s and t.
func (s IndexSet) AddSet(t IndexSet) IndexSet {
	for _, sp := range t {
		s = s.Add(sp.Lo, sp.Hi)
	}
	return s
}

// Remove returns the set without [lo, hi] (the receiver is not modified).
func (s IndexSet) Remove(lo, hi int64) IndexSet {
	if lo > hi {
		return s
	}
	out := make(IndexSet, 0, len(s)+1)
	for _, sp := range s {
		if sp.Hi < lo || sp.Lo > hi {
			out = append(out, sp)
			continue
		}
		if sp.Lo < lo {
			out = append(out, Span{sp.Lo, lo - 1})
		}
		if sp.Hi > hi {
			out = append(out, Span{hi + 1, sp.Hi})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Intersect returns the part of s inside [lo, hi].
func (s IndexSet) Intersect(lo, hi int64) IndexSet {
	var out IndexSet
	for _, sp := range s {
		a, b := max(sp.Lo, lo), min(sp.Hi, hi)
		if a <= b {
			out = append(out, Span{a, b})
		}
	}
	return out
}

// Each calls f for the ordinals in order until f returns false.
func (s IndexSet) Each(f func(o int64) bool) {
	for _, sp := range s {
		// Written so that a span ending at the largest int64 ends the
		// loop instead of wrapping around.
		for o := sp.Lo; o <= sp.Hi; o++ {
			if !f(o) {
				return
			}
			if o == sp.Hi {
				break
			}
		}
	}
}

// ArrayState is what an array parent (seq[].server) keeps about its
// subjobs: the indices submitted (start, end, step) and, by ordinal, which
// are still queued and which are done. Every ordinal in neither set has a
// subjob record (seq[i].server) in the job table: running, or requeued
// after a failure. Subjobs that have not started exist only as ordinals in
// Queued: the FSM creates a subjob's record when a run decision names it.
type ArrayState struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	Step  int64 `json:"step"`
	// MaxRun is max_run_subjobs (qsub -J ...%N); 0 means no limit.
	MaxRun int64    `json:"max_run,omitempty"`
	Queued IndexSet `json:"queued,omitempty"`
	Done   IndexSet `json:"done,omitempty"`
	// NonZero is set once a subjob ended with a non-zero exit status; the
	// parent's Exit_status is then 1 (0 when every subjob exited 0).
	NonZero bool `json:"nonzero,omitempty"`
}

// ParseArraySpec parses qsub -J's value X-Y[:Z][%N]: indices X to Y (X < Y,
// both >= 0) by step Z (default 1), at most N subjobs running at once.
func ParseArraySpec(spec string) (*ArrayState, error) {
	bad := fmt.Errorf("illegal -J value %q", spec)
	body, limit, hasLimit := strings.Cut(spec, "%")
	rng, step, hasStep := strings.Cut(body, ":")
	from, to, ok := strings.Cut(rng, "-")
	if !ok {
		return nil, bad
	}
	num := func(s string) (int64, bool) {
		if s == "" || strings.TrimLeft(s, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	a := &ArrayState{Step: 1}
	var okA, okB bool
	a.Start, okA = num(from)
	a.End, okB = num(to)
	if !okA || !okB || a.Start >= a.End {
		return nil, bad
	}
	if hasStep {
		if a.Step, ok = num(step); !ok || a.Step < 1 {
			return nil, bad
		}
	}
	if hasLimit {
		if a.MaxRun, ok = num(limit); !ok || a.MaxRun < 1 {
			return nil, bad
		}
	}
	return a, nil
}

// Size is the number of indices submitted. It saturates at the largest
// int64 instead of wrapping (0-9223372036854775807 has one index more than
// an int64 can count), so a size check can never be passed by overflow.
func (a *ArrayState) Size() int64 {
	if !a.Valid() {
		return math.MaxInt64
	}
	n := (a.End - a.Start) / a.Step
	if n == math.MaxInt64 {
		return n
	}
	return n + 1
}

// Valid reports whether the submitted range is well formed: indices from 0
// up, Start below End, a positive step and no negative max_run_subjobs.
// The FSM refuses an array that is not, whatever the server checked, since
// every computation on the ordinals relies on it.
func (a *ArrayState) Valid() bool {
	return a.Start >= 0 && a.End > a.Start && a.Step >= 1 && a.MaxRun >= 0
}

// Index is the array index of ordinal o.
func (a *ArrayState) Index(o int64) int64 { return a.Start + o*a.Step }

// Ordinal returns the ordinal of array index idx, if idx was submitted.
func (a *ArrayState) Ordinal(idx int64) (int64, bool) {
	if idx < a.Start || idx > a.End || (idx-a.Start)%a.Step != 0 {
		return 0, false
	}
	return (idx - a.Start) / a.Step, true
}

// OrdinalRange maps an index range [from, to] to the ordinals whose
// indices fall inside it (ok false when none do).
func (a *ArrayState) OrdinalRange(from, to int64) (int64, int64, bool) {
	lo := max(from, a.Start)
	hi := min(to, a.End)
	if lo > hi {
		return 0, 0, false
	}
	// Ceiling division without computing lo-Start+Step-1, which can
	// overflow for a large step.
	d := lo - a.Start
	olo := d / a.Step
	if d%a.Step != 0 {
		olo++
	}
	ohi := (hi - a.Start) / a.Step
	return olo, ohi, olo <= ohi
}

// StepOrdinals returns the ordinals of set whose indices lie in [from, to]
// on the progression from, from+step, ... The work is bounded by the
// ordinals of set inside the range (at most the array's size), never by
// the numbers of the request: qdel 'N[0-9223372036854775806:2]' costs what
// the array holds.
func (a *ArrayState) StepOrdinals(set IndexSet, from, to, step int64) IndexSet {
	lo, hi, ok := a.OrdinalRange(from, to)
	if !ok || step < 1 {
		return nil
	}
	if step == 1 {
		return set.Intersect(lo, hi)
	}
	var out IndexSet
	set.Intersect(lo, hi).Each(func(o int64) bool {
		if (a.Index(o)-from)%step != 0 {
			return true
		}
		// Ordinals come in order: extend the last span or start one.
		if n := len(out); n > 0 && out[n-1].Hi == o-1 {
			out[n-1].Hi = o
		} else {
			out = append(out, Span{o, o})
		}
		return true
	})
	return out
}

// AnyInRange reports whether any submitted index lies in [from, to] on the
// progression from, from+step, ... Index(o)-from modulo step repeats after
// at most step ordinals, so at most min(step, size) ordinals are tried.
func (a *ArrayState) AnyInRange(from, to, step int64) bool {
	lo, hi, ok := a.OrdinalRange(from, to)
	if !ok || step < 1 {
		return false
	}
	last := hi
	if hi-lo > step-1 {
		last = lo + step - 1
	}
	for o := lo; o <= last; o++ {
		if (a.Index(o)-from)%step == 0 {
			return true
		}
	}
	return false
}

// Running is how many subjobs exist as records (started, not done).
func (a *ArrayState) Running() int64 {
	return a.Size() - a.Queued.Count() - a.Done.Count()
}

// Begun reports whether any subjob has started.
func (a *ArrayState) Begun() bool { return a.Queued.Count() < a.Size() }

// Complete reports whether every subjob is done.
func (a *ArrayState) Complete() bool { return a.Done.Count() == a.Size() }

// Copy returns a copy; the sets are immutable values and may be shared.
func (a *ArrayState) Copy() *ArrayState {
	c := *a
	return &c
}

// Submitted is array_indices_submitted: "1-10" or "1-10:2".
func (a *ArrayState) Submitted() string {
	s := strconv.FormatInt(a.Start, 10) + "-" + strconv.FormatInt(a.End, 10)
	if a.Step != 1 {
		s += ":" + strconv.FormatInt(a.Step, 10)
	}
	return s
}

// Indices formats a set of ordinals as array indices ("1,3-5,7-11:2"), "-"
// when empty, as array_indices_remaining shows them.
func (a *ArrayState) Indices(s IndexSet) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(s))
	for _, sp := range s {
		lo, hi := a.Index(sp.Lo), a.Index(sp.Hi)
		switch {
		case lo == hi:
			parts = append(parts, strconv.FormatInt(lo, 10))
		case a.Step == 1:
			parts = append(parts, fmt.Sprintf("%d-%d", lo, hi))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d:%d", lo, hi, a.Step))
		}
	}
	return strings.Join(parts, ",")
}

// IsArray reports whether j is an array parent.
func (j *Job) IsArray() bool { return j.Array != nil }

// IsSubjob reports whether j is a subjob.
func (j *Job) IsSubjob() bool { return j.ArrayID() != "" }

// OrderRank is the job's place in submission order: Rank, which qorder
// swaps, or Seq for jobs stored before Rank existed.
func (j *Job) OrderRank() int64 {
	if j.Rank != nil {
		return *j.Rank
	}
	return j.Seq
}

// ArrayIndexMarker is replaced by the subjob's index in the parent's
// Output_Path and Error_Path, as in OpenPBS.
const ArrayIndexMarker = "^array_index^"

// FormatArrayID builds "<seq>[].<server>".
func FormatArrayID(seq int64, server string) string {
	return strconv.FormatInt(seq, 10) + "[]." + server
}

// SubjobID builds "<seq>[<idx>].<server>" from a parent's id.
func SubjobID(parentID string, idx int64) string {
	base, rest, ok := strings.Cut(parentID, "[]")
	if !ok {
		return parentID
	}
	return base + "[" + strconv.FormatInt(idx, 10) + "]" + rest
}

// SplitArrayID takes "<seq>[<text>].<server>" apart: the parent's id and
// the text inside the brackets ("" for the parent itself). ok is false for
// ids without brackets.
func SplitArrayID(id string) (parent, inside string, ok bool) {
	open := strings.IndexByte(id, '[')
	if open < 0 {
		return "", "", false
	}
	end := strings.IndexByte(id[open:], ']')
	if end < 0 {
		return "", "", false
	}
	end += open
	return id[:open] + "[]" + id[end+1:], id[open+1 : end], true
}

// ParseIndexRange parses the inside of a subjob or range id: "7", "3-9" or
// "3-9:2". A single index gives from == to and step 1.
func ParseIndexRange(s string) (from, to, step int64, err error) {
	bad := fmt.Errorf("illegally formed array index %q", s)
	rng, st, hasStep := strings.Cut(s, ":")
	a, b, isRange := strings.Cut(rng, "-")
	if from, err = strconv.ParseInt(a, 10, 64); err != nil || from < 0 {
		return 0, 0, 0, bad
	}
	to, step = from, 1
	if isRange {
		if to, err = strconv.ParseInt(b, 10, 64); err != nil || to < from {
			return 0, 0, 0, bad
		}
	}
	if hasStep {
		if step, err = strconv.ParseInt(st, 10, 64); err != nil || step < 1 || !isRange {
			return 0, 0, 0, bad
		}
	}
	return from, to, step, nil
}

// NewSubjob returns the record of subjob idx of array parent p, in state
// Q: the parent's request and attributes, its own id, output paths with
// the index filled in, and no history of its own yet.
func (p *Job) NewSubjob(idx int64) *Job {
	s := p.Copy()
	s.ID = SubjobID(p.ID, idx)
	s.SetArrayID(p.ID)
	s.SetArrayIndex(idx)
	s.Array = nil
	s.Token = ""
	ix := strconv.FormatInt(idx, 10)
	s.Output = strings.ReplaceAll(p.Output, ArrayIndexMarker, ix)
	s.Error = strings.ReplaceAll(p.Error, ArrayIndexMarker, ix)
	// PBS fills the index into staging paths too.
	s.SetStagein(strings.ReplaceAll(p.Stagein(), ArrayIndexMarker, ix))
	s.SetStageout(strings.ReplaceAll(p.Stageout(), ArrayIndexMarker, ix))
	s.State, s.Substate = StateQueued, SubQueued
	s.Hold = "n"
	s.Comment = ""
	s.History = nil
	s.Exit, s.Used, s.Exec = nil, nil, nil
	s.SetEstStart(0)
	s.SetEstExec(nil)
	s.SetTopJob(false)
	s.SetNeverRunEpoch(0)
	s.RunCount = 0
	s.Stime = 0
	s.SetObit(0)
	s.SetDeps(nil)
	return s
}
