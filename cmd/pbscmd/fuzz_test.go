package pbscmd

// Fuzz targets for the commands' parsers: the qmgr grammar (with print's
// quoting, which must replay), #PBS directives, getopt, -W lists, -a
// dates and qrun -H. `make fuzz` runs them; `go test` runs their seeds.

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
)

// formatQmgr writes a parsed set/unset/list/create directive back as qmgr
// text, quoting values the way `qmgr -c "print ..."` does.
func formatQmgr(d *qmgrDirective) string {
	var b strings.Builder
	b.WriteString(d.verb + " " + d.object)
	if len(d.names) > 0 {
		b.WriteString(" " + strings.Join(d.names, ","))
	}
	for i, a := range d.attrs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" " + a.Name)
		if a.Resource != "" {
			b.WriteString("." + a.Resource)
		}
		if a.Op != "" {
			b.WriteString(" " + a.Op + " " + quoteValue(a.Value))
		}
	}
	return b.String()
}

func FuzzQmgrDirective(f *testing.F) {
	for _, s := range []string{
		"s s scheduling=true", "p q workq", "l n", `set queue a,b@default resources_max.ncpus += 4, comment = "x, y"`,
		"set node n1 resources_available.aoe = rhel,sles, comment=hi", "s q q max_run = [u:PBS_GENERIC = 4]", "unset server comment",
		"set server some_future_attr = 3", "frob server", "set", "set bogus", "set queue q enabled true", "set queue q enabled = 'x",
		"create queue workq queue_type=execution; set queue workq enabled=true # comment\nset queue workq started = True",
		"create resource scratch type=size, flag=nh", "import hook h1 application/x-python default /tmp/h.py", "export hook h1 application/x-python base64",
		`set server comment = "it's"'"quoted"'`, `set server comment = "a[b"`, `set server comment = ""`, "set server comment = \"two\nlines\"",
		"set sched job_sort_formula = '2*ncpus + walltime/60'", "delete node n1,n2", "list server scheduling, managers", "help set", "quit",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var dirs []string
		fuzzcheck.Bounded(t, len(text), func() { dirs = splitQmgrDirectives(text) })
		for _, one := range dirs {
			var d *qmgrDirective
			var perr *qmgrParseError
			fuzzcheck.Bounded(t, len(text), func() { d, perr = parseQmgrDirective(one) })
			if perr != nil {
				if perr.class < 1 || perr.class > 4 || perr.pos < 0 || perr.pos > len(one) {
					t.Fatalf("%q: error class %d at %d (line of %d bytes)", one, perr.class, perr.pos, len(one))
				}
				continue
			}
			switch d.verb {
			case "set", "unset", "list", "print", "create", "delete":
			default:
				continue
			}
			// What print writes must replay as the same directive.
			text2 := formatQmgr(d)
			again := splitQmgrDirectives(text2)
			if len(again) != 1 {
				t.Fatalf("%q: printed as %q, which splits into %q", one, text2, again)
			}
			d2, perr := parseQmgrDirective(again[0])
			if perr != nil {
				t.Fatalf("%q: printed as %q, which does not parse: %+v", one, text2, perr)
			}
			if d2.verb != d.verb || d2.object != d.object || !reflect.DeepEqual(d2.names, d.names) && len(d.names)+len(d2.names) > 0 ||
				!reflect.DeepEqual(d2.attrs, d.attrs) && len(d.attrs)+len(d2.attrs) > 0 {
				t.Fatalf("%q parses as %s %s %q %+v;\nprinted as %q it parses as %s %s %q %+v", one, d.verb, d.object, d.names, d.attrs,
					text2, d2.verb, d2.object, d2.names, d2.attrs)
			}
		}
	})
}

// FuzzQmgrValue checks print's quoting alone: any value a server holds must
// come back unchanged from a replayed "set" line.
func FuzzQmgrValue(f *testing.F) {
	for _, s := range []string{"plain", "x, y", `it's`, `say "hi"`, `both ' and "`, "a[b", "", "two\nlines", "#hash", "semi;colon", "[u:alice=4]", "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		// Values are what "set" stores: no leading or trailing blanks (the
		// parser trims them) and no line breaks outside a quoted value.
		if v != strings.TrimRight(strings.TrimLeft(v, " \t"), " \t") {
			return
		}
		line := "set server comment = " + quoteValue(v)
		dirs := splitQmgrDirectives(line)
		if len(dirs) != 1 {
			t.Fatalf("value %q: %q splits into %q", v, line, dirs)
		}
		d, perr := parseQmgrDirective(dirs[0])
		if perr != nil {
			t.Fatalf("value %q: %q does not parse: %+v", v, line, perr)
		}
		want := []model.ManagerAttr{{Name: "comment", Op: "=", Value: v}}
		if !reflect.DeepEqual(d.attrs, want) {
			t.Fatalf("value %q: %q parses as %+v", v, line, d.attrs)
		}
	})
}

// shellQuote quotes a word so that splitWords reads it back unchanged.
func shellQuote(w string) string {
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func FuzzQsubDirectives(f *testing.F) {
	for _, s := range []string{
		"#!/bin/sh\n#PBS -N test\n#PBS -l select=2:ncpus=4:mem=8gb\n#PBS -l walltime=01:00:00\n#PBS -j oe\necho hi\n",
		"#PBS -q workq -m abe -M alice@example.com\n#PBS -W depend=afterok:12.svr:13,afterany:14\n#PBS -J 1-10:2%3\n",
		"#PBS -v \"A='x,y'\",B=2\n#PBS -l select=1:ncpus=1 \\\n  -l place=scatter\nhostname\n#PBS -N ignored\n",
		"  #PBS -a 202612011200.30\n: colon\n#PBSfoo comment\n#PBS -r y -k oe -p 10\n",
		"#PBS -N 'unbalanced\n", "#PBS -X\n", "#PBS operand\n", "#PBS -W block=true\n", "#PBS -W umask=077\n", "#PBS -J 0-9223372036854775806\n",
		"#PBS -l \"mem=1gb\" -e \"/tmp/a b\" -o 'x\"y'\n", "#PBS \\\n", "#PBS -c 5\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		var ds []directive
		var err error
		fuzzcheck.Bounded(t, len(script), func() { ds, err = scanDirectives(script, "#PBS") })
		if err != nil {
			var ce *cmdError
			if !errors.As(err, &ce) || ce.Code == 0 || !strings.HasPrefix(ce.Msg, "directive error: ") {
				t.Fatalf("scanDirectives(%q): %v (%T)", script, err, err)
			}
			return
		}
		for _, d := range ds {
			// The words of a directive survive quoting and re-splitting.
			quoted := make([]string, len(d.Words))
			for i, w := range d.Words {
				quoted[i] = shellQuote(w)
			}
			back, err := splitWords(strings.Join(quoted, " "))
			if err != nil || !reflect.DeepEqual(back, d.Words) && len(back)+len(d.Words) > 0 {
				t.Fatalf("words %q quoted as %q split as %q, %v", d.Words, quoted, back, err)
			}
		}
		fuzzcheck.Bounded(t, len(script), func() { _, err = parseDirectives(ds) })
		if err != nil {
			var ce *cmdError
			if !errors.As(err, &ce) || ce.Code == 0 {
				t.Fatalf("parseDirectives(%q): %v (%T)", script, err, err)
			}
		}
	})
}

// FuzzGetopt checks the getopt split of qsub's grammar: the split written
// out as separate words splits again the same way, and the whole option
// parse never panics. Arguments are separated by
// NUL bytes in the input.
func FuzzGetopt(f *testing.F) {
	for _, s := range []string{"-lselect=2:ncpus=1\x00script.sh", "-joe\x00-N\x00name\x00--\x00prog\x00arg", "-an1", "-\x00-", "--long", "-l",
		"-hV\x00-Wdepend=afterok:1", "x\x00-q\x00workq\x00y", "-J\x000-9\x00-z", "-W\x00block=maybe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\x00")
		g, err := normalizeGetopt(qsubSpec, args)
		if err != nil {
			var ge *getoptError
			if !errors.As(err, &ge) {
				t.Fatalf("%q: %v (%T)", args, err, err)
			}
			return
		}
		words := append(append(append([]string{}, g.Flags...), "--"), g.Operands...)
		g2, err := normalizeGetopt(qsubSpec, words)
		if err != nil || !reflect.DeepEqual(g2.Flags, g.Flags) || !reflect.DeepEqual(g2.Operands, g.Operands) && len(g.Operands)+len(g2.Operands) > 0 {
			t.Fatalf("%q splits as %q %q; %q splits as %q %q, %v", args, g.Flags, g.Operands, words, g2.Flags, g2.Operands, err)
		}
		fuzzcheck.Bounded(t, len(in), func() { parseQsubWords(args) })
	})
}

// FuzzWAttrs checks qsub/qalter -W lists, depend lists included.
func FuzzWAttrs(f *testing.F) {
	for _, s := range []string{"depend=afterok:1,afterany:2", "block=true,umask=077", "group_list='a,b'", "depend=afterok:12.svr:13", "=x", "a=", "x,y=1", "'", "sandbox=PRIVATE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		attrs, err := parseWAttrs(w)
		if err != nil {
			var ce *cmdError
			if !errors.As(err, &ce) || ce.Code == 0 {
				t.Fatalf("parseWAttrs(%q): %v (%T)", w, err, err)
			}
			return
		}
		for _, a := range attrs {
			if a.name == "" || a.value == "" || strings.ContainsAny(a.name, "=,") {
				t.Fatalf("parseWAttrs(%q) = %+v", w, attrs)
			}
		}
	})
}

// FuzzDateTime checks qsub -a / qalter -a: an accepted time, written back
// in the full [CC]YYMMDDhhmm.SS form, reads as the same instant.
func FuzzDateTime(f *testing.F) {
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC).Unix()
	for _, s := range []string{"1200", "0930.15", "261201", "11301530", "2612011200", "202612011200.30", "2359", "0230.99", "123", "abcd", "1231235959"} {
		f.Add(s, now)
	}
	f.Fuzz(func(t *testing.T, v string, nowUnix int64) {
		now := time.Unix(nowUnix, 0).UTC()
		if now.Year() < 1000 || now.Year() > 9999 {
			return
		}
		u, ok := parseDateTime(v, now, time.UTC)
		if !ok {
			return
		}
		at := time.Unix(u, 0).UTC()
		if at.Year() < 1000 || at.Year() > 9999 {
			return // not writable in the 12-digit form
		}
		full := at.Format("200601021504.05")
		u2, ok := parseDateTime(full, now, time.UTC)
		if !ok || u2 != u {
			t.Fatalf("parseDateTime(%q) = %v; %q reads as %v, %v", v, at, full, time.Unix(u2, 0).UTC(), ok)
		}
	})
}

// FuzzRunVnodes checks qrun -H: every name is non-empty and holds no
// separator.
func FuzzRunVnodes(f *testing.F) {
	for _, s := range []string{"vn1+vn2", "(vn1:ncpus=2)+(vn2)", "+", "()", "(a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		names, ok := parseRunVnodes(spec)
		if !ok {
			return
		}
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, "+:") {
				t.Fatalf("parseRunVnodes(%q) = %q", spec, names)
			}
		}
	})
}

// fuzzEnv is an Env with a fixed clock and nothing else: the option
// parsers read only the time, the zone, PBS_TZID and the host name.
func fuzzEnv() *Env {
	return &Env{
		Now:       func() time.Time { return time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC) },
		Loc:       time.UTC,
		LookupEnv: func(string) (string, bool) { return "", false },
		Hostname:  func() (string, error) { return "login1", nil },
	}
}

// FuzzCommandArgs runs the option parsers of qdel, qstat, pbsnodes, qalter
// and pbs_rsub, and qselect's -l comparisons, on any argument list (words
// separated by NUL bytes): a parse gives a result or a command error with
// a non-zero exit status, never a panic.
func FuzzCommandArgs(f *testing.F) {
	for _, s := range []struct {
		cmd  byte
		args string
	}{
		{0, "-W\x00force\x0012.svr"}, {0, "-x\x001[2-9:3].svr"}, {0, "-Wsuppress_email=5\x001"}, {1, "-fx\x0012[].svr"}, {1, "-ans\x00-u\x00alice"},
		{1, "-F\x00json\x00-f"}, {2, "-av"}, {2, "-o\x00n1\x00-C\x00down"}, {2, "-S\x00-j"}, {3, "-l\x00walltime=1:00\x0012"}, {3, "-a\x00202612011200\x001"},
		{3, "-W\x00depend=afterok:1,afterany:2\x001"}, {4, "-R\x001200\x00-D\x0001:00:00\x00-l\x00select=1:ncpus=1"},
		{4, "-R\x001200\x00-E\x001300\x00-r\x00FREQ=DAILY;COUNT=3"}, {4, "-I\x00-1\x00-N\x00bad name"}, {5, "ncpus.gt.4"}, {5, "mem=1gb"}, {5, "a.b"}, {5, ".gt.4"},
	} {
		f.Add(s.cmd, s.args)
	}
	env := fuzzEnv()
	f.Fuzz(func(t *testing.T, cmd byte, in string) {
		args := strings.Split(in, "\x00")
		var err error
		fuzzcheck.Bounded(t, len(in), func() {
			switch cmd % 6 {
			case 0:
				_, _, err = parseQdel(args)
			case 1:
				_, _, err = parseQstat(args)
			case 2:
				_, _, err = parsePbsnodes(args)
			case 3:
				_, _, err = parseQalter(env, args)
			case 4:
				_, _, err = parseRsub(env, args)
			case 5:
				if c, ok := parseResCmp(in); ok && (c.name == "" || c.value == "") {
					t.Fatalf("parseResCmp(%q) = %+v", in, c)
				}
			}
		})
		if err == nil {
			return
		}
		var ce *cmdError
		var ge *getoptError
		if !errors.As(err, &ge) && !(errors.As(err, &ce) && ce.Code != 0) {
			t.Fatalf("command %d %q: %v (%T)", cmd%6, args, err, err)
		}
	})
}
