package pbscmd

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// qmgrCommands and qmgrObjects are in the order PBS tries prefixes: the
// first match wins, so "s" is set as a command and server as an object.
var (
	qmgrCommands = []string{"create", "delete", "set", "unset", "list", "print", "active", "import", "export"}
	qmgrObjects  = []string{"server", "queue", "node", "resource", "sched", "hook", "pbshook"}
)

// qmgrDirective is one parsed qmgr qmgrDirective.
type qmgrDirective struct {
	verb   string
	object string
	names  []string // empty: the default (server) or active objects
	attrs  []model.ManagerAttr
	// import/export operands.
	contentType, encoding, file string
	text                        string // the qmgrDirective as typed (for -e and errors)
}

// qmgrParseError is a qmgr syntax error: the class is the exit status without
// -a (1 command, 2 object, 3 name list, 4 attributes); pos points at the
// offending character for the caret line.
type qmgrParseError struct {
	class int
	msg   string // full message lines (without the caret), or "" for "Syntax error"
	pos   int
	line  string
}

func (e *qmgrParseError) Error() string { return e.msg }

func matchPrefix(word string, list []string) string {
	w := strings.ToLower(word)
	if w == "" {
		return ""
	}
	for _, c := range list {
		if strings.HasPrefix(c, w) {
			return c
		}
	}
	return ""
}

// splitDirectives splits input text into directives: ";" and newlines end
// one, "#" starts a comment, a trailing "\" continues the line. Quotes
// protect all three.
func splitQmgrDirectives(text string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	comment := false
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case comment:
			if ch == '\n' {
				comment = false
				flush()
			}
		case quote != 0:
			cur.WriteByte(ch)
			if ch == quote {
				quote = 0
			}
		case ch == '\\' && i+1 < len(text) && text[i+1] == '\n':
			i++
			cur.WriteByte(' ')
		case ch == '"' || ch == '\'':
			quote = ch
			cur.WriteByte(ch)
		case ch == '#':
			comment = true
		case ch == ';' || ch == '\n':
			flush()
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	return out
}

// scanner walks one qmgrDirective.
type scanner struct {
	s   string
	pos int
}

func (sc *scanner) skipSpace() {
	for sc.pos < len(sc.s) && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == '\t') {
		sc.pos++
	}
}

// word reads up to whitespace.
func (sc *scanner) word() (string, int) {
	sc.skipSpace()
	start := sc.pos
	for sc.pos < len(sc.s) && sc.s[sc.pos] != ' ' && sc.s[sc.pos] != '\t' {
		sc.pos++
	}
	return sc.s[start:sc.pos], start
}

func (sc *scanner) peekWord() string {
	save := sc.pos
	w, _ := sc.word()
	sc.pos = save
	return w
}

// operatorFollows reports whether the word after the next one starts with
// an assignment operator ("name = v", "name += v"): then the next word is
// an attribute, whether or not this qmgr knows its name.
func (sc *scanner) operatorFollows() bool {
	save := sc.pos
	defer func() { sc.pos = save }()
	sc.word()
	sc.skipSpace()
	rest := sc.s[sc.pos:]
	return strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "+=") || strings.HasPrefix(rest, "-=")
}

func (sc *scanner) done() bool {
	sc.skipSpace()
	return sc.pos >= len(sc.s)
}

// parseDirective parses one qmgrDirective. Meta commands (help, quit...) come
// back as verb with no object.
func parseQmgrDirective(text string) (*qmgrDirective, *qmgrParseError) {
	sc := &scanner{s: text}
	w, wpos := sc.word()
	d := &qmgrDirective{text: text}
	switch strings.ToLower(w) {
	case "help", "?", "quit", "exit", "q", "history":
		d.verb = strings.ToLower(w)
		if d.verb == "?" {
			d.verb = "help"
		}
		if d.verb == "q" {
			d.verb = "quit"
		}
		d.names = strings.Fields(text[sc.pos:])
		return d, nil
	}
	d.verb = matchPrefix(w, qmgrCommands)
	if d.verb == "" {
		return nil, &qmgrParseError{class: 1, msg: fmt.Sprintf("qmgr: Illegal operation: %s\nTry 'help' if you are having trouble.", w), pos: wpos, line: text}
	}
	ow, opos := sc.word()
	if ow == "" {
		return nil, &qmgrParseError{class: 2, msg: "qmgr: No object type given", pos: opos, line: text}
	}
	obj := strings.ToLower(ow)
	switch obj {
	case "queues":
		obj = "queue"
	case "nodes":
		obj = "node"
	}
	d.object = matchPrefix(obj, qmgrObjects)
	if d.object == "" {
		return nil, &qmgrParseError{class: 2, msg: fmt.Sprintf("qmgr: Illegal object type: %s.", ow), pos: opos, line: text}
	}
	if d.object == "pbshook" {
		return nil, &qmgrParseError{class: 2, msg: "qmgr: built-in (pbshook) hooks are not supported", pos: opos, line: text}
	}
	if d.verb == "import" || d.verb == "export" {
		return parseImportExport(d, sc)
	}
	// A name list follows unless the next word starts the attributes.
	next := sc.peekWord()
	if next != "" && !startsAttr(d.object, next) && !sc.operatorFollows() {
		nw, npos := sc.word()
		names, ok := parseNames(nw)
		if !ok {
			return nil, &qmgrParseError{class: 3, pos: npos, line: text}
		}
		d.names = names
	}
	if sc.done() {
		if (d.verb == "create" || d.verb == "delete") && len(d.names) == 0 && d.object != "server" {
			return nil, &qmgrParseError{class: 3, pos: sc.pos, line: text}
		}
		return d, nil
	}
	withValues := d.verb == "set" || d.verb == "create"
	attrs, perr := parseAttrs(sc, withValues)
	if perr != nil {
		perr.line = text
		return nil, perr
	}
	if d.verb == "delete" {
		return nil, &qmgrParseError{class: 4, pos: sc.pos, line: text}
	}
	d.attrs = attrs
	return d, nil
}

// startsAttr reports whether word begins an attribute list rather than
// naming objects: it holds an operator, or is an attribute of the object.
func startsAttr(object, word string) bool {
	if strings.ContainsAny(word, "=") {
		return true
	}
	base, _, _ := strings.Cut(strings.TrimRight(word, ","), ".")
	base, _, _ = strings.Cut(base, ",")
	return knownAttr(object, base)
}

// knownAttr lists the attribute names that may follow the object type
// directly (so "list server scheduling" does not name a server).
func knownAttr(object, name string) bool {
	for _, a := range qmgrAttrNames[object] {
		if a == name {
			return true
		}
	}
	return false
}

var qmgrAttrNames = map[string][]string{
	"server": {"scheduling", "managers", "operators", "default_queue", "acl_host_enable", "acl_hosts", "acl_user_enable",
		"acl_users", "acl_roots", "comment", "default_qsub_arguments", "resources_default", "default_chunk", "max_run", "max_queued", "max_run_soft", "max_array_size",
		"max_concurrent_provision", "max_job_sequence_id", "scheduler_iteration", "flatuid", "query_other_jobs",
		"mail_from", "mail_program", "job_history_enable", "job_history_duration", "node_fail_requeue", "node_group_enable", "node_group_key", "server_state", "total_jobs", "state_count", "pbs_version"},
	"queue": {"queue_type", "priority", "acl_user_enable", "acl_users", "acl_group_enable", "acl_groups", "acl_host_enable", "acl_hosts", "max_run", "max_queued", "max_run_soft",
		"resources_max", "resources_min", "resources_default", "default_chunk", "backfill_depth", "node_group_key", "enabled", "started", "total_jobs", "state_count"},
	"node": {"state", "comment", "resources_available", "sort_priority", "priority", "provision_enable", "current_aoe",
		"Mom", "Port", "ntype", "pcpus", "jobs"},
	"resource": {"type", "flag"},
	"sched": {"provision_policy", "node_sort_key", "job_sort_key", "by_queue", "round_robin", "strict_ordering", "backfill_depth",
		"job_sort_formula", "job_sort_formula_threshold", "sched_min_interval",
		"preemptive_sched", "preempt_queue_prio", "preempt_prio", "preempt_order", "preempt_sort", "max_starve",
		"fair_share", "fairshare_entity", "fairshare_usage_res", "fairshare_decay_time", "fairshare_decay_factor", "unknown_shares",
		"fairshare_enforce_no_shares", "resource_group", "do_not_span_psets", "only_explicit_psets"},
	"hook": {"type", "enabled", "event", "user", "alarm", "order", "debug", "fail_action", "freq"},
}

// parseNames splits "a,b@default"; a server suffix is accepted and dropped
// (Strata has one server). "@default" alone means every object.
func parseNames(w string) ([]string, bool) {
	var out []string
	for _, n := range strings.Split(w, ",") {
		if n == "" {
			return nil, false
		}
		name, _, _ := strings.Cut(n, "@")
		if name != "" {
			out = append(out, name)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out, true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parseAttrs reads "name[.res] OP value, ..." (withValues) or "name[.res], ...".
func parseAttrs(sc *scanner, withValues bool) ([]model.ManagerAttr, *qmgrParseError) {
	var out []model.ManagerAttr
	for {
		sc.skipSpace()
		start := sc.pos
		for sc.pos < len(sc.s) && isIdentByte(sc.s[sc.pos]) {
			sc.pos++
		}
		if sc.pos == start {
			return nil, &qmgrParseError{class: 4, pos: sc.pos}
		}
		a := model.ManagerAttr{Name: sc.s[start:sc.pos]}
		if sc.pos < len(sc.s) && sc.s[sc.pos] == '.' {
			sc.pos++
			rs := sc.pos
			for sc.pos < len(sc.s) && isIdentByte(sc.s[sc.pos]) {
				sc.pos++
			}
			if sc.pos == rs {
				return nil, &qmgrParseError{class: 4, pos: sc.pos}
			}
			a.Resource = sc.s[rs:sc.pos]
		}
		sc.skipSpace()
		if withValues {
			switch {
			case strings.HasPrefix(sc.s[sc.pos:], "+="):
				a.Op, sc.pos = "+=", sc.pos+2
			case strings.HasPrefix(sc.s[sc.pos:], "-="):
				a.Op, sc.pos = "-=", sc.pos+2
			case strings.HasPrefix(sc.s[sc.pos:], "="):
				a.Op, sc.pos = "=", sc.pos+1
			default:
				return nil, &qmgrParseError{class: 4, pos: sc.pos}
			}
			sc.skipSpace()
			v, ok := readValue(sc)
			if !ok {
				return nil, &qmgrParseError{class: 4, pos: sc.pos}
			}
			a.Value = v
		}
		out = append(out, a)
		sc.skipSpace()
		if sc.pos >= len(sc.s) {
			return out, nil
		}
		if sc.s[sc.pos] != ',' {
			return nil, &qmgrParseError{class: 4, pos: sc.pos}
		}
		sc.pos++
	}
}

// readValue reads a quoted value, a bracketed limit ("[u:alice=4]", which
// may hold spaces), or a bare word up to the comma that starts the next
// attribute (a comma not followed by "name =" stays in the value, so
// "resources_available.aoe = a,b" works unquoted).
func readValue(sc *scanner) (string, bool) {
	if sc.pos >= len(sc.s) {
		return "", false
	}
	var b strings.Builder
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		switch {
		case c == '"' || c == '\'':
			end := strings.IndexByte(sc.s[sc.pos+1:], c)
			if end < 0 {
				return "", false
			}
			b.WriteString(sc.s[sc.pos+1 : sc.pos+1+end])
			sc.pos += end + 2
		case c == '[':
			end := strings.IndexByte(sc.s[sc.pos:], ']')
			if end < 0 {
				return "", false
			}
			b.WriteString(strings.ReplaceAll(sc.s[sc.pos:sc.pos+end+1], " ", ""))
			sc.pos += end + 1
		case c == ',':
			if nextIsAttr(sc.s[sc.pos+1:]) {
				return strings.TrimSpace(b.String()), true
			}
			b.WriteByte(c)
			sc.pos++
		default:
			b.WriteByte(c)
			sc.pos++
		}
	}
	return strings.TrimRight(b.String(), " \t"), true
}

// nextIsAttr reports whether s starts with "name[.res] (=|+=|-=)".
func nextIsAttr(s string) bool {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	for i < len(s) && (isIdentByte(s[i]) || s[i] == '.') {
		i++
	}
	if i == start {
		return false
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	rest := s[i:]
	return strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "+=") || strings.HasPrefix(rest, "-=")
}

// parseImportExport reads "NAME content-type encoding [FILE|-]".
func parseImportExport(d *qmgrDirective, sc *scanner) (*qmgrDirective, *qmgrParseError) {
	if d.object != "hook" {
		return nil, &qmgrParseError{class: 2, msg: fmt.Sprintf("qmgr: %s is only for hooks", d.verb), pos: 0, line: d.text}
	}
	name, npos := sc.word()
	ct, cpos := sc.word()
	enc, epos := sc.word()
	file, fpos := sc.word()
	switch {
	case name == "":
		return nil, &qmgrParseError{class: 3, pos: npos, line: d.text}
	case ct == "":
		return nil, &qmgrParseError{class: 4, pos: cpos, line: d.text}
	case enc != "default" && enc != "base64":
		return nil, &qmgrParseError{class: 4, pos: epos, line: d.text}
	case d.verb == "import" && file == "":
		return nil, &qmgrParseError{class: 4, pos: fpos, line: d.text}
	case !sc.done():
		return nil, &qmgrParseError{class: 4, pos: sc.pos, line: d.text}
	}
	d.names = []string{name}
	d.contentType, d.encoding, d.file = ct, enc, file
	return d, nil
}
