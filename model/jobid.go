package model

import (
	"fmt"
	"strconv"
	"strings"
)

// JobID is a parsed job or reservation identifier operand:
// [R|S|M]<seq>[<[index]>][.server][@server].
type JobID struct {
	Prefix string // "", "R", "S" or "M"
	Seq    int64
	Index  string // text inside [], "" for no brackets; "[]" is Index "" with Array true
	Array  bool   // the id had brackets
	Server string // after the dot, may be empty
}

// ParseJobID parses an operand following parse_jobid.c: a sequence of at most
// 12 digits, an optional reservation prefix, an optional [...] with digits,
// '-' and ':', then optional .server and @server. A reservation id cannot
// carry an array index.
func ParseJobID(s string) (JobID, error) {
	var id JobID
	bad := fmt.Errorf("illegally formed job identifier: %s", s)
	rest := s
	if at := strings.IndexByte(rest, '@'); at >= 0 {
		if at == len(rest)-1 {
			return id, bad
		}
		rest = rest[:at]
	}
	if rest != "" && strings.ContainsRune("RSM", rune(rest[0])) {
		id.Prefix = rest[:1]
		rest = rest[1:]
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i > 12 {
		return id, bad
	}
	id.Seq, _ = strconv.ParseInt(rest[:i], 10, 64)
	rest = rest[i:]
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 || id.Prefix != "" {
			return id, bad
		}
		id.Array = true
		id.Index = rest[1:end]
		for _, r := range id.Index {
			if !(r >= '0' && r <= '9' || r == '-' || r == ':') {
				return id, bad
			}
		}
		rest = rest[end+1:]
	}
	if rest != "" {
		if rest[0] != '.' || len(rest) == 1 {
			return id, bad
		}
		id.Server = rest[1:]
	}
	return id, nil
}

// Full returns the id with server as its server part when it has none; this
// is the expansion of a short "123" to "123.<server>".
func (id JobID) Full(server string) string {
	srv := id.Server
	if srv == "" {
		srv = server
	}
	var b strings.Builder
	b.WriteString(id.Prefix)
	b.WriteString(strconv.FormatInt(id.Seq, 10))
	if id.Array {
		b.WriteString("[" + id.Index + "]")
	}
	b.WriteString("." + srv)
	return b.String()
}

// FormatJobID builds "<seq>.<server>".
func FormatJobID(seq int64, server string) string {
	return strconv.FormatInt(seq, 10) + "." + server
}

// ShortJobID shortens an id to its first server label, as qstat's default
// table does: "102.pbssvr.example.com" becomes "102.pbssvr".
func ShortJobID(full string) string {
	dot := strings.IndexByte(full, '.')
	if dot < 0 {
		return full
	}
	rest := full[dot+1:]
	if d2 := strings.IndexByte(rest, '.'); d2 >= 0 {
		return full[:dot+1+d2]
	}
	return full
}

// SeqOf returns the numeric part of a job id ("102" of "102.pbssvr").
func SeqOf(full string) string {
	end := strings.IndexAny(full, ".[")
	if end < 0 {
		return full
	}
	return full[:end]
}
