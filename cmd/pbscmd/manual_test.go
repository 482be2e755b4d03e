package pbscmd

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestManualsCoverEveryCommandAndOption holds the manual pages to the
// commands: one manual per command, and its documented options are exactly
// the letters the command parses, in the same order.
func TestManualsCoverEveryCommandAndOption(t *testing.T) {
	byName := map[string]Manual{}
	for _, m := range Manuals() {
		byName[m.Name] = m
		var got []byte
		for _, d := range m.Options {
			got = append(got, d.Letter)
			if d.Text == "" {
				t.Errorf("%s -%c: no description", m.Name, d.Letter)
			}
			if known, hasValue := optSpec(m.Spec).takesValue(d.Letter); !known || hasValue != (d.Arg != "") {
				t.Errorf("%s -%c: argument %q does not match the spec %q", m.Name, d.Letter, d.Arg, m.Spec)
			}
		}
		if string(got) != Letters(m.Spec) {
			t.Errorf("%s: manual documents %q, the command parses %q", m.Name, got, Letters(m.Spec))
		}
		if m.Synopsis == "" || m.Description == "" {
			t.Errorf("%s: manual without synopsis or description", m.Name)
		}
	}
	for _, c := range Table() {
		if _, ok := byName[c.Name]; !ok {
			t.Errorf("%s: no manual", c.Name)
		}
	}
}

// TestQmgrSpecIsWhatQmgrParses checks the hand-written qmgr parser against
// qmgrSpec: every letter outside it is a usage error.
func TestQmgrSpecIsWhatQmgrParses(t *testing.T) {
	for c := byte('a'); c <= 'z'; c++ {
		if known, _ := qmgrSpec.takesValue(c); known {
			continue
		}
		tio := newTestEnv(&fakeServer{})
		if code := Qmgr(t.Context(), tio.env, []string{"-" + string(c)}); code != 1 || tio.stderr.String() != qmgrUsage {
			t.Errorf("qmgr -%c: exit %d, stderr %q; want the usage", c, code, tio.stderr.String())
		}
	}
}

// TestManualOptionsAreWhatCommandsAccept runs every command with every
// single-letter option: the command must call a letter an invalid option
// exactly when its manual does not document it. This catches a manual (and
// so a man page) that drifted from the parser whatever the specs say.
func TestManualOptionsAreWhatCommandsAccept(t *testing.T) {
	run := map[string]func(context.Context, *Env, []string) int{
		"qsub": Qsub, "qstat": Qstat, "qdel": Qdel, "pbsnodes": Pbsnodes, "qhold": Qhold, "qrls": Qrls,
		"qalter": Qalter, "qsig": Qsig, "qselect": Qselect, "qmove": Qmove, "qrerun": Qrerun, "qrun": Qrun,
		"qorder": Qorder, "tracejob": Tracejob, "qmgr": Qmgr, "pbs_rsub": Rsub, "pbs_rstat": Rstat, "pbs_rdel": Rdel,
		"pbs_ralter": Ralter,
		"pbsfs":      Pbsfs,
	}
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for _, m := range Manuals() {
		fn := run[m.Name]
		if fn == nil {
			t.Fatalf("%s: no function in this test", m.Name)
		}
		documented := map[byte]bool{}
		for _, o := range m.Options {
			documented[o.Letter] = true
		}
		for i := 0; i < len(letters); i++ {
			c := letters[i]
			srv := &fakeServer{connectErr: errors.New("no server in this test")}
			if m.Name == "qsub" {
				srv = &fakeServer{} // qsub asks the server for defaults before parsing
			}
			tio := newTestEnv(srv)
			fn(t.Context(), tio.env, []string{"-" + string(c), "1.svr"})
			invalid := strings.Contains(tio.stderr.String(), "invalid option")
			switch {
			case m.Name == "qmgr":
				invalid = tio.stderr.String() == qmgrUsage
			case len(m.Options) == 0:
				// Commands without options print their usage for any.
				invalid = invalid || strings.Contains(tio.stderr.String(), m.Synopsis)
			}
			if invalid == documented[c] {
				t.Errorf("%s -%c: documented %v, but the command says %q", m.Name, c, documented[c], tio.stderr.String())
			}
		}
	}
}
