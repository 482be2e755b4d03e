package model

import (
	"fmt"
	"strconv"
	"strings"
)

// ResReq is one "name=value" inside a select chunk, value in canonical form.
type ResReq struct {
	Name  string `json:"n"`
	Value string `json:"v"`
}

// Chunk is one "N:res=val:..." piece of a select statement. Consume and Match
// are derived from Res when the request is parsed, so the scheduler never
// parses strings in its hot loop.
type Chunk struct {
	Count int      `json:"count"`
	Res   []ResReq `json:"res"`
	// Consume holds consumable amounts per copy of the chunk (bytes for
	// sizes): ncpus, mem, ngpus and custom consumables.
	Consume map[string]float64 `json:"consume,omitempty"`
	// Match holds non-consumable constraints: host, vnode, arch, aoe,
	// booleans ("True"/"False") and custom strings.
	Match map[string]string `json:"match,omitempty"`
}

// Get returns the canonical value of a resource in the chunk.
func (c Chunk) Get(name string) (string, bool) {
	for _, r := range c.Res {
		if r.Name == name {
			return r.Value, true
		}
	}
	return "", false
}

// String prints the chunk as it appears in a select statement.
func (c Chunk) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(c.Count))
	for _, r := range c.Res {
		b.WriteByte(':')
		b.WriteString(r.Name)
		b.WriteByte('=')
		b.WriteString(r.Value)
	}
	return b.String()
}

// Select is a parsed select statement.
type Select []Chunk

// String prints the normalized select statement ("2:ncpus=8:mem=16gb+1:ncpus=1").
func (s Select) String() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = c.String()
	}
	return strings.Join(parts, "+")
}

// NodeCount is the number of chunks (Resource_List.nodect).
func (s Select) NodeCount() int {
	n := 0
	for _, c := range s {
		n += c.Count
	}
	return n
}

// Total sums a consumable over all chunks (Resource_List.ncpus, .mem).
func (s Select) Total(name string) float64 {
	var t float64
	for _, c := range s {
		t += float64(c.Count) * c.Consume[name]
	}
	return t
}

// SelectError is a select statement the grammar or the resource definitions
// reject. Code is the PBS error number the server reports.
type SelectError = PBSError

// ParseSelect parses "[N:]res=val[:res=val...][+...]" against defs. Values
// are normalized; unknown resources give "Unknown resource: X" (15035),
// malformed text gives "Illegal attribute or resource value".
func ParseSelect(spec string, defs ResourceDefs) (Select, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, Errorf(PBSEBadAttrVal, " Resource_List.select")
	}
	var out Select
	total := 0
	for _, piece := range strings.Split(spec, "+") {
		c, err := parseChunk(piece, defs)
		if err != nil {
			return nil, err
		}
		// Every chunk copy costs the scheduler and qrun work and a place
		// in the run decision; the total is bounded (and cannot overflow).
		if c.Count > MaxSelectChunks-total {
			return nil, Errorf(PBSEBadAttrVal, " Resource_List.select (more than %d chunks)", MaxSelectChunks)
		}
		total += c.Count
		// mpiprocs is the number of PBS_NODEFILE lines per chunk, which
		// the agent writes out: bounded like the chunk count.
		if v, ok := c.Get("mpiprocs"); ok {
			if n, err := strconv.Atoi(v); err != nil || n > MaxSelectChunks {
				return nil, Errorf(PBSEBadAttrVal, " Resource_List.mpiprocs")
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// MaxSelectChunks bounds the number of chunks (the sum of the counts) of
// one select, and a chunk's mpiprocs; OpenPBS has no such bound.
const MaxSelectChunks = 100000

func parseChunk(piece string, defs ResourceDefs) (Chunk, error) {
	bad := Errorf(PBSEBadAttrVal, " Resource_List.select")
	if piece == "" || strings.ContainsAny(piece, " \t") {
		return Chunk{}, bad
	}
	fields := strings.Split(piece, ":")
	c := Chunk{Count: 1}
	if n, err := strconv.Atoi(fields[0]); err == nil {
		if n <= 0 || n > MaxSelectChunks {
			return Chunk{}, bad
		}
		c.Count = n
		fields = fields[1:]
	} else if !strings.Contains(fields[0], "=") {
		return Chunk{}, bad
	}
	seen := map[string]bool{}
	for _, f := range fields {
		name, value, ok := strings.Cut(f, "=")
		if !ok || name == "" || value == "" {
			return Chunk{}, bad
		}
		if seen[name] {
			return Chunk{}, &PBSError{Code: PBSEBadAttrVal, Msg: "duplicated resource within a section of a select specification, resource is: " + name}
		}
		seen[name] = true
		if err := c.add(name, value, defs); err != nil {
			return Chunk{}, err
		}
	}
	return c, nil
}

// add normalizes one resource and records it in Res, Consume or Match.
func (c *Chunk) add(name, value string, defs ResourceDefs) error {
	def, ok := defs[name]
	if !ok {
		return &PBSError{Code: PBSEUnknownResource, Msg: "Unknown resource: " + name}
	}
	if !def.HostLevel() {
		return Errorf(PBSEBadAttrVal, " Resource_List.%s (not allowed in a select chunk)", name)
	}
	norm, err := def.Normalize(value)
	if err != nil {
		return Errorf(PBSEBadAttrVal, " Resource_List.%s", name)
	}
	if def.Type == TypeDuration {
		// HH:MM:SS holds the chunk separator: a chunk keeps durations in
		// seconds so that its String parses back to the same chunk.
		secs, _ := ParseDuration(norm)
		norm = strconv.FormatInt(secs, 10)
	}
	c.Res = append(c.Res, ResReq{Name: name, Value: norm})
	if def.Consumable() {
		amt, _ := def.Amount(norm)
		if amt < 0 {
			return Errorf(PBSEBadAttrVal, " Resource_List.%s", name)
		}
		if c.Consume == nil {
			c.Consume = map[string]float64{}
		}
		c.Consume[name] = amt
		return nil
	}
	if c.Match == nil {
		c.Match = map[string]string{}
	}
	c.Match[name] = norm
	return nil
}

// WithDefault returns the chunk with name=value added when the chunk does not
// already ask for name (default_chunk.*).
func (c Chunk) WithDefault(name, value string, defs ResourceDefs) (Chunk, error) {
	if _, ok := c.Get(name); ok {
		return c, nil
	}
	out := Chunk{Count: c.Count, Res: append([]ResReq(nil), c.Res...)}
	out.Consume = copyFloatMap(c.Consume)
	out.Match = copyStringMap(c.Match)
	if err := out.add(name, value, defs); err != nil {
		return c, err
	}
	return out, nil
}

// Arrangement values of place.
const (
	PlaceFree     = "free"
	PlacePack     = "pack"
	PlaceScatter  = "scatter"
	PlaceVScatter = "vscatter"
)

// Sharing values of place.
const (
	SharingShared   = "shared"
	SharingExcl     = "excl"
	SharingExclHost = "exclhost"
)

// Place is a parsed place statement.
type Place struct {
	Arrangement string `json:"arrangement,omitempty"`
	Sharing     string `json:"sharing,omitempty"`
	Group       string `json:"group,omitempty"`
}

// ParsePlace parses "[arrangement][:sharing][:group=res]".
func ParsePlace(spec string) (Place, error) {
	bad := Errorf(PBSEBadAttrVal, " Resource_List.place")
	var p Place
	if spec == "" || strings.HasPrefix(spec, ":") {
		return p, bad
	}
	for _, f := range strings.Split(spec, ":") {
		switch {
		case f == PlaceFree || f == PlacePack || f == PlaceScatter || f == PlaceVScatter:
			if p.Arrangement != "" {
				return p, bad
			}
			p.Arrangement = f
		case f == SharingShared || f == "share" || f == SharingExcl || f == SharingExclHost:
			if p.Sharing != "" {
				return p, bad
			}
			if f == "share" {
				f = SharingShared
			}
			p.Sharing = f
		case strings.HasPrefix(f, "group="):
			if p.Group != "" || len(f) == len("group=") {
				return p, bad
			}
			p.Group = strings.TrimPrefix(f, "group=")
		default:
			return p, bad
		}
	}
	return p, nil
}

// String prints the place statement in normalized order.
func (p Place) String() string {
	var parts []string
	for _, s := range []string{p.Arrangement, p.Sharing} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if p.Group != "" {
		parts = append(parts, "group="+p.Group)
	}
	return strings.Join(parts, ":")
}

// ArrangementOrFree returns the arrangement, defaulting to free.
func (p Place) ArrangementOrFree() string {
	if p.Arrangement == "" {
		return PlaceFree
	}
	return p.Arrangement
}

func copyFloatMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func copyStringMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// CheckSelectSyntax reports whether a select statement is well formed without
// knowing the resource definitions (what qsub checks before it sends).
func CheckSelectSyntax(spec string) error {
	defs := ResourceDefs{}
	for _, piece := range strings.Split(spec, "+") {
		fields := strings.Split(piece, ":")
		for i, f := range fields {
			if i == 0 {
				if _, err := strconv.Atoi(f); err == nil {
					continue
				}
			}
			name, value, ok := strings.Cut(f, "=")
			if !ok || name == "" || value == "" {
				return fmt.Errorf("illegal select chunk %q", piece)
			}
			defs[name] = ResourceDef{Name: name, Type: TypeString, Flags: "h"}
		}
	}
	_, err := ParseSelect(spec, defs)
	return err
}
