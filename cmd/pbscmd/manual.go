package pbscmd

import (
	"fmt"
	"strings"
)

// Manual is what a PBS command's manual page is made of. The option
// letters come from the spec the command parses with and the synopsis is
// the usage text it prints, so the page cannot list an option the command
// lacks or miss one it has (manual_test.go holds Options equal to Spec).
type Manual struct {
	Name        string // command name
	Section     int    // manual section: 1 user commands, 8 administration
	Synopsis    string // the usage text the command prints on a usage error
	Spec        string // the getopt spec the command parses with
	Unsupported string // letters parsed but refused in this release
	Description string
	Options     []OptionDoc // one per letter of Spec, in Spec order
}

// OptionDoc documents one option letter.
type OptionDoc struct {
	Letter byte
	Arg    string // the value's name; "" for a flag without value
	Text   string
}

// Specs of the commands whose options are parsed inline elsewhere; named
// here so the parser and the manual use one string.
const (
	qholdSpec    optSpec = "h:"
	qrerunSpec   optSpec = "W:"
	qrunSpec     optSpec = "aH:"
	qselectSpec  optSpec = "a:A:h:HJl:N:p:q:r:s:tTu:x"
	qsigSpec     optSpec = "s:"
	tracejobSpec optSpec = "aslmvw:p:n:f:c:z"
	// qmgr parses its few options by hand (qmgr.go); this is that set.
	qmgrSpec  optSpec = "ac:enz"
	qmgrUsage         = "Usage: qmgr [-a] [-c command] [-e] [-n] [-z] [server...]\n       qmgr --version\n"
)

// o is a terse OptionDoc constructor for the tables below.
func o(letter byte, arg, text string) OptionDoc {
	return OptionDoc{Letter: letter, Arg: arg, Text: text}
}

// Manuals returns the manual of every PBS command, in the order of
// Commands and ReservationCommands.
func Manuals() []Manual {
	jobAttrs := []OptionDoc{
		o('a', "date_time", "Job is not eligible to run before [[CC]YY]MMDDhhmm[.SS] (Execution_Time)."),
		o('A', "account_string", "Account string (Account_Name)."),
		o('c', "interval", "Checkpoint interval (Checkpoint)."),
		o('C', "directive_prefix", "Prefix of the script's directive lines instead of #PBS (\"\" disables directives)."),
		o('e', "path", "Standard error path, [host:]path (Error_Path)."),
		o('f', "", "Stay in the foreground (accepted for compatibility)."),
		o('h', "", "Submit the job with a user hold."),
		o('I', "", "Interactive job."),
		o('j', "join", "Join stdout and stderr: oe, eo or n (Join_Path)."),
		o('J', "X-Y[:Z]", "Job array with indices X to Y, step Z."),
		o('k', "keep", "Keep output in the home directory: o, e, oe, eo, d or n (Keep_Files)."),
		o('l', "resource_list", "Resources, e.g. select=2:ncpus=4,walltime=1:00:00 (Resource_List); repeatable."),
		o('m', "mail_options", "Mail points: a, b, e, n (Mail_Points)."),
		o('M', "user_list", "Mail recipients (Mail_Users)."),
		o('N', "jobname", "Job name (Job_Name)."),
		o('o', "path", "Standard output path, [host:]path (Output_Path)."),
		o('p', "priority", "Priority, -1024 to 1023 (Priority)."),
		o('P', "project", "Project (project)."),
		o('q', "queue", "Destination queue."),
		o('r', "y|n", "Whether the job is rerunnable (Rerunable)."),
		o('R', "o|e|oe", "Remove the output files of the given streams."),
		o('S', "path", "Shell that runs the script (Shell_Path_List)."),
		o('u', "user_list", "User to run as (User_List)."),
		o('v', "variable_list", "Variables to export to the job, name or name=value, comma-separated."),
		o('V', "", "Export the whole submission environment to the job."),
		o('W', "attribute=value", "Other attributes: depend=, group_list=, umask=, block=true, sandbox=, ...; repeatable."),
		o('X', "", "X11 forwarding (interactive jobs)."),
		o('z', "", "Do not print the job identifier."),
	}
	pick := func(spec optSpec, docs []OptionDoc, override ...OptionDoc) []OptionDoc {
		var out []OptionDoc
		for i := 0; i < len(spec); i++ {
			if spec[i] == ':' {
				continue
			}
			for _, d := range append(override, docs...) {
				if d.Letter == spec[i] {
					out = append(out, d)
					break
				}
			}
		}
		return out
	}
	holdList := "Hold types: u (user), o (operator), s (system), n (none)."
	return []Manual{
		{Name: "qsub", Section: 1, Synopsis: qsubUsage, Spec: string(qsubSpec), Unsupported: qsubUnsupported,
			Description: "Submits a batch job: a script file, standard input, or a command after --. Options may also be given as #PBS directives at the top of the script; the command line wins. On success the job identifier is printed.",
			Options:     pick(qsubSpec, jobAttrs)},
		{Name: "qstat", Section: 1, Synopsis: qstatUsage, Spec: string(qstatSpec),
			Description: "Shows the status of jobs, queues (-Q, -q) or the server (-B).",
			Options: []OptionDoc{
				o('1', "", "With -n, the nodes on the same line."), o('a', "", "Alternate (wide) job listing."),
				o('B', "", "Server status."), o('D', "delim", "Delimiter for -F dsv."),
				o('E', "", "Group jobs by server and sort by id (accepted)."), o('f', "", "Full display of every attribute."),
				o('F', "format", "Output format of -f: json or dsv."), o('G', "", "Sizes in gigabytes."),
				o('H', "", "Finished and moved jobs only."), o('i', "", "Queued, held and waiting jobs only."),
				o('J', "", "Job arrays only."), o('M', "", "Sizes in megawords."),
				o('n', "", "Also the hosts the job runs on."), o('p', "", "Percentage completed instead of used CPU time."),
				o('q', "", "Queue limits."), o('Q', "", "Queue status."),
				o('r', "", "Running and suspended jobs only."), o('s', "", "Also the job comment."),
				o('t', "", "Subjobs of arrays too."), o('T', "", "Estimated start times of queued jobs."),
				o('u', "user", "Jobs of these users only."), o('w', "", "Wide output."),
				o('x', "", "Finished (history) jobs too."),
			}},
		{Name: "qdel", Section: 1, Synopsis: qdelUsage, Spec: string(qdelSpec),
			Description: "Deletes jobs: queued jobs are removed, running jobs are signalled (SIGTERM, then SIGKILL after kill_delay).",
			Options: []OptionDoc{
				o('W', "force|suppress_email=N", "force: remove the job even when its agent cannot be reached."),
				o('x', "", "Also delete finished jobs from the history."),
			}},
		{Name: "pbsnodes", Section: 8, Synopsis: pbsnodesUsage, Spec: string(pbsnodesSpec), Unsupported: pbsnodesUnsupported,
			Description: "Shows vnodes and hosts, and marks hosts offline or clears that state.",
			Options: []OptionDoc{
				o('a', "", "Every vnode with its attributes."), o('C', "comment", "Set the comment of the hosts."),
				o('D', "delim", "Delimiter for -F dsv."), o('F', "format", "Output format: json or dsv."),
				o('H', "", "Hosts given by name."), o('j', "", "With -S, job columns."),
				o('l', "", "Vnodes that are down or offline."), o('L', "", "With -S, long names."),
				o('o', "", "Mark the hosts offline."), o('r', "", "Clear the offline state of the hosts."),
				o('s', "server", "Server to ask."), o('S', "", "One line per vnode summary."),
				o('v', "", "The named vnodes with their attributes."),
			}},
		{Name: "qhold", Section: 1, Synopsis: qholdUsage, Spec: string(qholdSpec),
			Description: "Places holds on jobs.", Options: []OptionDoc{o('h', "hold_list", holdList)}},
		{Name: "qrls", Section: 1, Synopsis: qrlsUsage, Spec: string(qholdSpec),
			Description: "Releases holds on jobs.", Options: []OptionDoc{o('h', "hold_list", holdList)}},
		{Name: "qalter", Section: 1, Synopsis: qalterUsage, Spec: string(qalterSpec),
			Description: "Changes attributes of queued or held jobs (some also of running jobs). Options mean what they mean to qsub.",
			Options:     pick(qalterSpec, jobAttrs, o('h', "hold_list", holdList))},
		{Name: "qsig", Section: 1, Synopsis: qsigUsage, Spec: string(qsigSpec),
			Description: "Sends a signal to running jobs.",
			Options:     []OptionDoc{o('s', "signal", "Signal name or number (default SIGTERM); suspend and resume are accepted.")}},
		{Name: "qselect", Section: 1, Synopsis: qselectUsage, Spec: string(qselectSpec),
			Description: "Prints the identifiers of the jobs matching every given criterion.",
			Options: []OptionDoc{
				o('a', "[op]date_time", "Execution time compared with op (.eq. .ne. .lt. .le. .gt. .ge.)."),
				o('A', "account_string", "Account."), o('h', "hold_list", "Jobs holding these holds."),
				o('H', "", "Finished and moved jobs only."), o('J', "", "Job arrays only."),
				o('l', "resource_list", "Resources compared with op, e.g. ncpus.gt.4; repeatable."),
				o('N', "name", "Job name."), o('p', "[op]priority", "Priority compared with op."),
				o('q', "destination", "Queue."), o('r', "rerun", "Rerunable y or n."),
				o('s', "states", "Job states, e.g. QR."), o('t', "", "Subjobs too."),
				o('T', "", "Subjobs only."), o('u', "user_name", "Owner."),
				o('x', "", "Finished (history) jobs too."),
			}},
		{Name: "qmove", Section: 1, Synopsis: qmoveUsage, Spec: "",
			Description: "Moves queued jobs to another queue."},
		{Name: "qrerun", Section: 8, Synopsis: qrerunUsage, Spec: string(qrerunSpec),
			Description: "Requeues running jobs (operators and managers).",
			Options:     []OptionDoc{o('W', "force", "Requeue even when the agent cannot be reached.")}},
		{Name: "qrun", Section: 8, Synopsis: qrunUsage, Spec: string(qrunSpec),
			Description: "Runs queued jobs now, bypassing the scheduler's policy (operators and managers).",
			Options: []OptionDoc{
				o('a', "", "Return without waiting for the job to start."),
				o('H', "vnode_specification", "Run on these vnodes, e.g. (node1:ncpus=2)."),
			}},
		{Name: "qorder", Section: 1, Synopsis: qorderUsage, Spec: "",
			Description: "Exchanges the queue positions of two jobs."},
		{Name: "tracejob", Section: 8, Synopsis: tracejobUsage, Spec: string(tracejobSpec),
			Description: "Shows the life of a job from the history the server keeps in the job record.",
			Options: []OptionDoc{
				o('a', "", "Omit accounting records."), o('s', "", "Omit server records."),
				o('l', "", "Omit scheduler records."), o('m', "", "Omit agent records."),
				o('v', "", "Verbose."), o('w', "size", "Line width."),
				o('p', "path", "Log directory (accepted; the history is in the job record)."),
				o('n', "days", "Days of history to look at."), o('f', "filter", "Filter records by type."),
				o('c', "count", "Only messages repeated count times or more."), o('z', "", "Suppress repeated messages."),
			}},
		{Name: "qmgr", Section: 8, Synopsis: qmgrUsage, Spec: string(qmgrSpec),
			Description: "Administers the server, queue, node, resource, hook and sched objects; reads directives from -c, or from standard input.",
			Options: []OptionDoc{
				o('a', "", "Abort at the first error."), o('c', "command", "Run one directive."),
				o('e', "", "Echo each directive."), o('n', "", "Check syntax only."),
				o('z', "", "No errors on standard error."),
			}},
		{Name: "pbsfs", Section: 8, Synopsis: pbsfsUsage, Spec: string(pbsfsSpec),
			Description: "Shows the fairshare tree with each entity's shares, usage, share of the machine and rank; managers set, decay, trim or reset usage. Usage is replicated state: a change takes effect on every server at once, with the scheduler running.",
			Options: []OptionDoc{
				o('c', "entity1 entity2", "Print the entity whose jobs run first."),
				o('d', "", "Decay all usage once by fairshare_decay_factor (managers)."),
				o('e', "", "Forget the usage of entities the tree does not name (managers)."),
				o('g', "entity", "Print one entity and its path from the root."),
				o('I', "sched_name", "The scheduler (only default exists)."),
				o('p', "", "Print in a parsable format (name|parent|shares|usage|perc|factor|rank)."),
				o('t', "", "Print as a tree."),
				o('s', "entity usage_value", "Set an entity's usage (managers)."),
			}},
		{Name: "pbs_rsub", Section: 1, Synopsis: rsubUsage, Spec: string(rsubSpec),
			Description: "Submits an advance reservation, or a standing one with -r.",
			Options: []OptionDoc{
				o('D', "duration", "Duration."), o('E', "end_time", "End time."),
				o('G', "group_list", "Groups allowed to submit into it."), o('H', "auth_host_list", "Hosts allowed to submit into it."),
				o('I', "seconds", "Wait this long for confirmation."), o('l', "resource_list", "Resources, e.g. select=2:ncpus=4."),
				o('m', "mail_points", "Mail points."), o('M', "mail_list", "Mail recipients."),
				o('N', "reservation_name", "Name."), o('q', "destination", "Server to submit to."),
				o('r', "rrule", "Standing reservation rule (RFC 5545 RRULE subset)."), o('R', "start_time", "Start time."),
				o('U', "user_list", "Users allowed to submit into it."), o('W', "attribute=value", "Other attributes."),
			}},
		{Name: "pbs_rstat", Section: 1, Synopsis: rstatUsage, Spec: string(rstatSpec),
			Description: "Shows reservations.",
			Options: []OptionDoc{
				o('B', "", "Brief: identifiers only."), o('f', "", "Full display."),
				o('F', "", "Full display (same as -f)."), o('S', "", "Short display (default)."),
			}},
		{Name: "pbs_rdel", Section: 1, Synopsis: rdelUsage, Spec: "",
			Description: "Deletes reservations and the jobs in them."},
		{Name: "pbs_ralter", Section: 1, Synopsis: ralterUsage, Spec: string(ralterSpec),
			Description: "Alters a reservation: a change of times or select is confirmed by the scheduler like a new reservation, or refused leaving the reservation as it was.",
			Options: []OptionDoc{
				o('D', "duration", "New duration."), o('E', "end_time", "New end time."),
				o('G', "group_list", "Groups allowed to submit into it (replaces the list)."),
				o('I', "seconds", "Wait this long for the scheduler's verdict."),
				o('l', "select=...", "New select (growing or shrinking)."),
				o('m', "mail_points", "Mail points (a, b, c, e or n)."), o('M', "mail_list", "Mail recipients."),
				o('N', "reservation_name", "New name."), o('q', "@server", "Server."),
				o('R', "start_time", "New start time."),
				o('U', "user_list", "Users allowed to submit into it (replaces the list; the owner stays)."),
				o('W', "force", "Managers: apply new times even if the scheduler refuses them."),
			}},
	}
}

// Letters returns the option letters of a spec, in order.
func Letters(spec string) string {
	return strings.ReplaceAll(spec, ":", "")
}

// OptionWords are the "-x" words of a spec, for shell completion.
func OptionWords(spec string) []string {
	var out []string
	for _, c := range []byte(Letters(spec)) {
		out = append(out, fmt.Sprintf("-%c", c))
	}
	return out
}
