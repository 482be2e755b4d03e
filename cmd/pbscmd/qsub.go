package pbscmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const qsubUsage = `usage: qsub [-a date_time] [-A account_string] [-c interval]
	[-C directive_prefix] [-e path] [-f ] [-h ] [-I [-X]] [-j oe|eo] [-J X-Y[:Z]]
	[-k keep] [-l resource_list] [-m mail_options] [-M user_list]
	[-N jobname] [-o path] [-p priority] [-P project] [-q queue] [-r y|n]
	[-R o|e|oe] [-S path] [-u user_list] [-W otherattributes=value...]
	[-v variable_list] [-V ] [-z] [script | -- command [arg1 ...]]
       qsub --version
`

// submitRetry is how long qsub keeps retrying a submission whose reply was
// lost (for instance across a server restart); the token makes the retries
// safe.
const submitRetry = 30 * time.Second

// Qsub runs qsub with args (the words after the command name) and returns
// the exit status.
func Qsub(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	s := newSession(env)
	// qsub -I listens before submitting (the request carries the address
	// and cookie); a rebuilt request keeps the same listener.
	var it *interactiveWait
	defer func() {
		if it != nil {
			it.close()
		}
	}()
	req, quiet, id, err := submitWithDefaults(ctx, env, s, args, func(req *submitReq) error {
		if !req.interactive {
			return nil
		}
		if it == nil {
			var err error
			it, err = listenInteractive(env, &req.SubmitRequest)
			return err
		}
		req.Interactive, req.InteractiveCookie = it.addr, it.cookie
		return nil
	})
	if err != nil {
		return reportQsub(env, err)
	}
	if it != nil {
		return it.run(ctx, env, s, id)
	}
	if !quiet {
		fmt.Fprintln(env.Stdout, id)
	}
	if req.block {
		return waitBlocked(ctx, env, s, id)
	}
	return 0
}

// reportQsub prints a qsub failure and returns the exit status.
func reportQsub(env *Env, err error) int {
	var ce *cmdError
	var ge *getoptError
	switch {
	case errors.As(err, &ce):
		return printCmdError(env.Stderr, "qsub", qsubUsage, ce)
	case errors.As(err, &ge):
		return printCmdError(env.Stderr, "qsub", qsubUsage, usageErr(2, "%s", ge.Msg))
	case reportConnect(env.Stderr, "qsub", err):
		return 1
	}
	if pe, ok := model.AsPBSError(err); ok {
		fmt.Fprintf(env.Stderr, "qsub: %s\n", pe.Msg)
		return pe.ExitCode()
	}
	fmt.Fprintf(env.Stderr, "qsub: %v\n", err)
	return 1
}

// submitWithDefaults builds and submits the job in one round trip: it
// assumes the server has no default_qsub_arguments, and when the server
// says otherwise (PBSEStaleDefaults, nothing created) it rebuilds the
// request with the server's value and submits again. A qsub process used
// to ask for the defaults first, and that query scanned every job.
func submitWithDefaults(ctx context.Context, env *Env, s *session, args []string, prepare func(*submitReq) error) (*submitReq, bool, string, error) {
	applied := ""
	var defaults *qsubOpts
	for attempt := 0; ; attempt++ {
		req, quiet, err := buildSubmit(env, args, defaults)
		if err != nil {
			return nil, false, "", err
		}
		if err := prepare(req); err != nil {
			return nil, false, "", err
		}
		seen := applied
		req.DefaultArgs = &seen
		id, err := s.client.Submit(ctx, &req.SubmitRequest, submitRetry)
		var pe *model.PBSError
		if err == nil || !errors.As(err, &pe) || pe.Code != model.PBSEStaleDefaults || attempt == 3 {
			return req, quiet, id, err
		}
		applied = pe.Msg
		if defaults, err = parseDefaultQsubArguments(applied); err != nil {
			return nil, false, "", err
		}
	}
}

// parseDefaultQsubArguments parses the server's default_qsub_arguments
// with qsub's own grammar (nil when there are none).
func parseDefaultQsubArguments(value string) (*qsubOpts, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	words, err := splitWords(value)
	if err != nil {
		return nil, fmt.Errorf("default_qsub_arguments: %w", err)
	}
	o, _, err := parseQsubWords(words)
	if err != nil {
		return nil, fmt.Errorf("default_qsub_arguments %q: %w", value, err)
	}
	return o, nil
}

// buildSubmit turns qsub's command line (plus the script's directives and
// the server's defaults) into a submit request; quiet reports -z. Nothing is
// sent to the server here.
func buildSubmit(env *Env, args []string, defaults *qsubOpts) (*submitReq, bool, error) {
	cmdline, split, err := parseQsubWords(args)
	if err != nil {
		return nil, false, err
	}
	if err := unsupportedQsubOption(cmdline); err != nil {
		return nil, false, err
	}

	// Where the job comes from: a script file, stdin, or -- prog args.
	var script, defaultName string
	var argv []string
	switch {
	case split.AfterDashDash >= 0:
		if split.AfterDashDash > 0 || len(split.Operands) == 0 {
			return nil, false, usageErr(2, "%s", "a script cannot be combined with -- command")
		}
		argv = split.Operands
		defaultName = "STDIN"
	case len(split.Operands) > 1:
		return nil, false, usageErr(2, "%s", "only one script may be given")
	case len(split.Operands) == 0 && cmdline.bools['I']:
		// qsub -I without a script: stdin is the session's, not a script.
		defaultName = "STDIN"
	case len(split.Operands) == 0 || split.Operands[0] == "-":
		if script, err = readScriptStdin(env); err != nil {
			return nil, false, err
		}
		defaultName = "STDIN"
	default:
		if script, err = readScriptFile(split.Operands[0]); err != nil {
			return nil, false, err
		}
		defaultName = filepath.Base(split.Operands[0])
	}
	if err := checkScriptText(script); err != nil {
		return nil, false, err
	}

	// Directives, overridden by the command line.
	prefix := "#PBS"
	if p, ok := env.LookupEnv("PBS_DPREFIX"); ok {
		prefix = p
	}
	if p, ok := cmdline.vals['C']; ok {
		prefix = p
	}
	dirs, err := scanDirectives(script, prefix)
	if err != nil {
		return nil, false, err
	}
	fromScript, err := parseDirectives(dirs)
	if err != nil {
		return nil, false, err
	}
	opts := mergeQsub(defaults, fromScript, cmdline)
	if err := unsupportedQsubOption(opts); err != nil {
		return nil, false, err
	}
	if err := checkResources(&opts.res); err != nil {
		return nil, false, err
	}

	req, err := submitRequest(env, opts, defaultName)
	if err != nil {
		return nil, false, err
	}
	req.Script = script
	req.Argv = argv
	req.SubmitArgs = strings.Join(args, " ")
	if opts.bools['I'] {
		if len(argv) > 0 || opts.vals['J'] != "" {
			return nil, false, usageErr(2, "%s", "-I cannot be combined with -J or -- command")
		}
		// Only the script's directives are used, as in PBS.
		req.interactive = true
		req.Script = ""
	}
	return req, opts.bools['z'], nil
}

// submitRequest fills the request from merged options and the environment.
func submitRequest(env *Env, o *qsubOpts, defaultName string) (*submitReq, error) {
	cwd, err := env.Getwd()
	if err != nil {
		return nil, failErr(1, "cannot determine the current directory: %v", err)
	}
	host, err := env.Hostname()
	if err != nil {
		return nil, failErr(1, "cannot determine the host name: %v", err)
	}
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	req := &submitReq{SubmitRequest: api.SubmitRequest{
		Token:      token,
		Name:       defaultName,
		Queue:      o.vals['q'],
		Resources:  o.res.asMap(),
		Join:       o.vals['j'],
		Keep:       o.vals['k'],
		Shell:      o.vals['S'],
		Account:    o.vals['A'],
		Project:    o.vals['P'],
		MailPoints: o.vals['m'],
		MailUsers:  o.vals['M'],
		SubmitHost: host,
		Workdir:    cwd,
	}}
	if n, ok := o.vals['N']; ok {
		req.Name = n
	}
	if o.bools['h'] {
		req.Hold = "u"
	}
	if p, ok := o.vals['p']; ok {
		req.Priority, _ = strconv.Atoi(p) // checked by checkQsubValue
	}
	if r, ok := o.vals['r']; ok {
		rerun := r == "y"
		req.Rerunable = &rerun
	}
	if v, ok := o.vals['a']; ok {
		t, ok := parseDateTime(v, env.Now(), env.Loc)
		if !ok {
			return nil, errIllegalOpt('a')
		}
		req.ExecTime = t
	}
	req.Depend, _ = o.wValue("depend")
	req.GroupList, _ = o.wValue("group_list")
	req.Umask, _ = o.wValue("umask")
	req.Stagein, _ = o.wValue("stagein")
	req.Stageout, _ = o.wValue("stageout")
	if v, ok := o.wValue("create_resv_from_job"); ok {
		b, err := model.ParseBool(v)
		if err != nil {
			return nil, errIllegalOpt('W')
		}
		req.CreateResvFromJob = b
	}
	req.ArrayIndices = o.vals['J']
	if v, ok := o.wValue("block"); ok {
		req.block, _ = model.ParseBool(v)
	}
	if err := setOutputPaths(env, req, o, cwd, host); err != nil {
		return nil, err
	}
	req.Env, err = jobEnv(env, cwd, host, o.vals['v'], o.bools['V'])
	if err != nil {
		return nil, err
	}
	return req, nil
}

// setOutputPaths resolves -o and -e and checks that the user can write
// where the files will go. Default paths are left to the server (only it
// knows the sequence number), but their directory, the current one, is
// checked here all the same.
func setOutputPaths(env *Env, req *submitReq, o *qsubOpts, cwd, submitHost string) error {
	keep := o.vals['k']
	streams := []struct {
		opt    byte
		dst    *string
		joined bool // the stream goes into the other file
		kept   bool // -k keeps it on the execution host
	}{
		{'o', &req.Output, req.Join == "eo", strings.Contains(keep, "o") && !strings.Contains(keep, "d")},
		{'e', &req.Error, req.Join == "oe", strings.Contains(keep, "e") && !strings.Contains(keep, "d")},
	}
	checked := map[string]bool{}
	for _, s := range streams {
		dir := cwd
		if v, ok := o.vals[s.opt]; ok {
			h, p := outputPath(v, cwd, submitHost)
			if !model.ValidHostName(h) {
				// The agent copies to this host over SSH: a plain
				// name only, never "user@host" or an option.
				return errIllegalOpt(s.opt)
			}
			*s.dst = h + ":" + p
			if h != submitHost {
				continue // another host's file system: cannot check from here
			}
			dir = outputDir(p)
		}
		if s.joined || s.kept || checked[dir] {
			continue
		}
		checked[dir] = true
		if err := checkWritable(env, dir); err != nil {
			return err
		}
	}
	return nil
}

// newToken returns a random 128-bit submission token.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate submission token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
