package pbscmd

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// qmgrServer is the part of the API qmgr needs; *api.Client has it.
type qmgrServer interface {
	Manage(ctx context.Context, req *model.ManagerRequest) error
	Describe(ctx context.Context, object string, names []string, content bool) (*api.DescribeResponse, error)
}

var _ qmgrServer = (*api.Client)(nil)

// qmgr runs directives from -c, a terminal or a stream, as OpenPBS's qmgr.
type qmgr struct {
	ctx    context.Context
	env    *Env
	sess   *session
	client qmgrServer
	abort  bool // -a
	echo   bool // -e
	check  bool // -n
	quiet  bool // -z
	svr    string
	// active holds the objects "active" selected, per object type.
	active  map[string][]string
	history []string
	// readLine reads the next raw input line (import ... - reads the
	// script from it); nil when there is no more input.
	readLine func() (string, bool)
	exit     int
	stop     bool
}

// Qmgr is the qmgr command.
func Qmgr(ctx context.Context, env *Env, args []string) int {
	q := &qmgr{ctx: ctx, env: env, active: map[string][]string{}, svr: "default"}
	var command string
	haveCommand := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			q.svr = a // a server operand; Strata has one server
			continue
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'a':
				q.abort = true
			case 'e':
				q.echo = true
			case 'n':
				q.check = true
			case 'z':
				q.quiet = true
			case 'c':
				haveCommand = true
				if j+1 < len(a) {
					command = a[j+1:]
				} else if i+1 < len(args) {
					i++
					command = args[i]
				} else {
					return q.usage()
				}
				j = len(a)
			default:
				return q.usage()
			}
		}
	}
	q.sess = newSession(env)
	client, ok := q.sess.client.(qmgrServer)
	if !ok {
		fmt.Fprintln(env.Stderr, "qmgr: this server connection does not support manager requests")
		return 3
	}
	q.client = client
	in := bufio.NewReader(env.Stdin)
	q.readLine = func() (string, bool) {
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return "", false
		}
		return strings.TrimRight(line, "\r\n"), true
	}
	if haveCommand {
		for _, d := range splitQmgrDirectives(command) {
			if !q.run(d) {
				break
			}
		}
		return q.exit
	}
	fmt.Fprintln(env.Stdout, "Max open servers: 49")
	interactive := env.StdinIsTerminal != nil && env.StdinIsTerminal()
	prompt := "Qmgr: "
	var pending strings.Builder
	for !q.stop {
		if interactive {
			fmt.Fprint(env.Stdout, prompt)
		}
		line, ok := q.readLine()
		if !ok {
			break
		}
		if strings.HasSuffix(line, "\\") {
			pending.WriteString(strings.TrimSuffix(line, "\\") + " ")
			prompt = "Qmgr< "
			continue
		}
		pending.WriteString(line)
		text := pending.String()
		pending.Reset()
		prompt = "Qmgr: "
		if interactive {
			text = q.recall(text)
		}
		for _, d := range splitQmgrDirectives(text) {
			if !q.run(d) {
				return q.exit
			}
		}
	}
	return q.exit
}

func (q *qmgr) usage() int {
	fmt.Fprint(q.env.Stderr, qmgrUsage)
	return 1
}

// recall expands "!n" (history entry n) and "!!" (the last one), and
// records the line in the history.
func (q *qmgr) recall(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "!") {
		n := len(q.history)
		if t != "!!" {
			n, _ = strconv.Atoi(t[1:])
		}
		if n < 1 || n > len(q.history) {
			fmt.Fprintln(q.env.Stderr, "qmgr: No such history entry")
			return ""
		}
		text = q.history[n-1]
		fmt.Fprintln(q.env.Stdout, text)
	}
	if strings.TrimSpace(text) != "" {
		q.history = append(q.history, text)
	}
	return text
}

// fail records an error's exit status; with -a it stops the run.
func (q *qmgr) fail(code, abortCode int) bool {
	if q.abort {
		q.exit = abortCode
		q.stop = true
		return false
	}
	q.exit = code
	return true
}

func (q *qmgr) errorf(format string, args ...any) {
	if !q.quiet {
		fmt.Fprintf(q.env.Stderr, format, args...)
	}
}

// run parses and executes one directive; false stops the session.
func (q *qmgr) run(text string) bool {
	if q.echo {
		fmt.Fprintln(q.env.Stdout, text)
	}
	d, perr := parseQmgrDirective(text)
	if perr != nil {
		if perr.msg != "" {
			q.errorf("%s\n", perr.msg)
		} else {
			q.errorf("qmgr: Syntax error\n%s\n%s^\n", perr.line, strings.Repeat(" ", perr.pos))
		}
		return q.fail(perr.class, 1)
	}
	if q.check {
		return true
	}
	switch d.verb {
	case "quit", "exit":
		q.stop = true
		return false
	case "help":
		fmt.Fprint(q.env.Stdout, qmgrHelp)
		return true
	case "history":
		for i, h := range q.history {
			fmt.Fprintf(q.env.Stdout, "%d\t%s\n", i+1, h)
		}
		return true
	case "active":
		if len(d.names) == 0 {
			fmt.Fprintf(q.env.Stdout, "%s %s\n", strings.ToUpper(d.object[:1])+d.object[1:], strings.Join(q.active[d.object], ","))
			return true
		}
		q.active[d.object] = d.names
		return true
	case "list", "print":
		return q.show(d)
	case "export":
		return q.export(d)
	}
	return q.change(d)
}

// targets returns the names a directive applies to.
func (q *qmgr) targets(d *qmgrDirective) ([]string, bool) {
	switch d.object {
	case "server":
		return []string{""}, true
	case "sched":
		if len(d.names) == 0 {
			return []string{"default"}, true
		}
		return d.names, true
	}
	if len(d.names) > 0 {
		return d.names, true
	}
	if a := q.active[d.object]; len(a) > 0 {
		return a, true
	}
	q.errorf("qmgr: No active %ss, nothing done.\n", d.object)
	return nil, q.fail(3, 1)
}

// change sends create, delete, set, unset and import requests, one per
// named object.
func (q *qmgr) change(d *qmgrDirective) bool {
	names, ok := q.targets(d)
	if !ok || names == nil {
		return ok
	}
	req := model.ManagerRequest{Verb: d.verb, Object: d.object, Attrs: d.attrs}
	if d.verb == "import" {
		content, err := q.importContent(d)
		if err != nil {
			q.errorf("qmgr: %v\n", err)
			return q.fail(1, 2)
		}
		req.ContentType, req.Content = d.contentType, content
	}
	for _, name := range names {
		req.Name = name
		if err := q.client.Manage(q.ctx, &req); err != nil {
			if !q.serverError(name, d.object, err) {
				return false
			}
		}
	}
	return true
}

// importContent reads an import's file ("-": the following input lines up
// to an empty line, or all of stdin after -c) and decodes base64.
func (q *qmgr) importContent(d *qmgrDirective) (string, error) {
	var raw string
	if d.file == "-" {
		var b strings.Builder
		for {
			line, ok := q.readLine()
			if !ok || (d.encoding == "base64" && strings.TrimSpace(line) == "") {
				break
			}
			b.WriteString(line + "\n")
		}
		raw = b.String()
	} else {
		path := d.file
		if !filepath.IsAbs(path) {
			if wd, err := q.env.Getwd(); err == nil {
				path = filepath.Join(wd, path)
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("cannot read hook file %s: %w", d.file, err)
		}
		raw = string(data)
	}
	if d.encoding == "base64" {
		dec, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(raw), ""))
		if err != nil {
			return "", fmt.Errorf("hook file %s: bad base64 content: %w", d.file, err)
		}
		return string(dec), nil
	}
	return raw, nil
}

// serverError prints a server rejection in qmgr's form.
func (q *qmgr) serverError(name, object string, err error) bool {
	if reportConnectQmgr(q, err) {
		return q.fail(3, 3)
	}
	pe, ok := model.AsPBSError(err)
	if !ok {
		q.errorf("qmgr: %v\n", err)
		return q.fail(1, 2)
	}
	if name == "" {
		name = q.serverName()
	}
	q.errorf("qmgr obj=%s svr=%s: %s\n", name, q.svr, pe.Msg)
	q.errorf("qmgr: Error (%d) returned from server\n", pe.Code)
	if pe.Code == model.PBSEHookError {
		q.errorf("qmgr: hook error returned from server\n")
	}
	return q.fail(pe.ExitCode(), 2)
}

func reportConnectQmgr(q *qmgr, err error) bool {
	var ce *api.ConnectError
	if errors.As(err, &ce) {
		q.errorf("qmgr: %s\n", ce.Error())
		return true
	}
	return false
}

func (q *qmgr) serverName() string {
	name, err := q.sess.serverName(q.ctx)
	if err != nil {
		return q.svr
	}
	return name
}

// show runs list and print.
func (q *qmgr) show(d *qmgrDirective) bool {
	w := q.env.Stdout
	var failed error
	failedName := ""
	get := func(object string, names []string, content bool) []model.ConfigObject {
		if failed != nil {
			return nil
		}
		resp, err := q.client.Describe(q.ctx, object, names, content)
		if err != nil {
			failed = err
			if len(names) == 1 {
				failedName = names[0]
			}
			return nil
		}
		return resp.Objects
	}
	names := d.names
	if d.object == "server" {
		names = nil
	}
	if d.verb == "list" {
		if objs := get(d.object, names, false); failed == nil {
			writeList(w, objs, d.attrs)
		}
	} else {
		switch d.object {
		case "server":
			res := get("resource", nil, false)
			queues := get("queue", nil, false)
			srv := get("server", nil, false)
			sched := get("sched", nil, false)
			if failed == nil {
				printResources(w, res)
				printQueues(w, queues)
				printServer(w, srv[0])
				printSched(w, sched[0])
			}
		case "queue":
			if objs := get("queue", names, false); failed == nil {
				printQueues(w, objs)
			}
		case "resource":
			if objs := get("resource", names, false); failed == nil {
				printResources(w, objs)
			}
		case "sched":
			if objs := get("sched", names, false); failed == nil {
				printSched(w, objs[0])
			}
		case "node":
			if objs := get("node", names, false); failed == nil {
				printNodes(w, objs)
			}
		case "hook":
			// Scripts are for managers; others see the attributes.
			objs := get("hook", names, true)
			if pe, ok := model.AsPBSError(failed); ok && pe.Code == model.PBSEPerm {
				failed = nil
				objs = get("hook", names, false)
			}
			if failed == nil {
				printHooks(w, objs)
			}
		}
	}
	if failed != nil {
		return q.serverError(failedName, d.object, failed)
	}
	return true
}

// export writes a hook's script (or config file) to a file or stdout.
func (q *qmgr) export(d *qmgrDirective) bool {
	resp, err := q.client.Describe(q.ctx, "hook", d.names, true)
	if err != nil {
		return q.serverError(d.names[0], "hook", err)
	}
	o := resp.Objects[0]
	content := o.Script
	if d.contentType == "application/x-config" {
		content = o.Config
	}
	if d.encoding == "base64" {
		content = wrap64(content)
	}
	if d.file == "" || d.file == "-" {
		io.WriteString(q.env.Stdout, content)
		return true
	}
	path := d.file
	if !filepath.IsAbs(path) {
		if wd, err := q.env.Getwd(); err == nil {
			path = filepath.Join(wd, path)
		}
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		q.errorf("qmgr: cannot write %s: %v\n", d.file, err)
		return q.fail(1, 2)
	}
	return true
}

const qmgrHelp = `General syntax: command [object_type [object_name[,...]] [attribute[.resource] OP value[,...]]]
Commands:  create delete set unset list print active import export help quit history
Objects:   server queue node resource sched hook
Operators: =  +=  -=
Directives end at a newline or ";"; "#" starts a comment; a trailing "\" continues the line.
Commands and object types may be abbreviated to any prefix ("s s scheduling=true", "p q workq").
import hook NAME application/x-python|application/x-executable|application/x-config default|base64 FILE|-
export hook NAME content-type default|base64 [FILE]
`
