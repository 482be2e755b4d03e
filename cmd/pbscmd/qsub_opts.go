package pbscmd

import (
	"errors"

	"github.com/strata-hpc/strata/model"
	"strconv"
	"strings"
)

// qsubSpec is qsub's whole option grammar, shared by the command line and
// #PBS directives (one spec, one parser).
const qsubSpec optSpec = "a:A:c:C:e:fhIj:J:k:l:m:M:N:o:p:P:q:r:R:S:u:v:VW:Xz"

// qsubUnsupported are options this release parses but cannot honour yet; a
// job submitted without them would silently behave differently, so qsub
// refuses them.
const qsubUnsupported = "cRuX"

// qsubOpts is one source's options (command line or directives).
type qsubOpts struct {
	vals  map[byte]string // valued options, last occurrence
	bools map[byte]bool   // -h -V -z -f
	res   resourceList    // -l, merged by resource name
	w     []wAttr         // -W attributes, in order (later ones win)
}

// resourceList keeps -l entries in first-seen order with the last value of
// each name, which is how PBS merges repeated -l options.
type resourceList struct {
	names []string
	vals  map[string]string
}

func (r *resourceList) set(name, value string) {
	if r.vals == nil {
		r.vals = map[string]string{}
	}
	if _, ok := r.vals[name]; !ok {
		r.names = append(r.names, name)
	}
	r.vals[name] = value
}

func (r *resourceList) get(name string) (string, bool) {
	v, ok := r.vals[name]
	return v, ok
}

// merge lays over on top of r (over wins for the same name).
func (r *resourceList) merge(over resourceList) {
	for _, n := range over.names {
		r.set(n, over.vals[n])
	}
}

// asMap returns the resources for the submit request.
func (r *resourceList) asMap() map[string]string {
	if len(r.names) == 0 {
		return nil
	}
	m := make(map[string]string, len(r.names))
	for _, n := range r.names {
		m[n] = r.vals[n]
	}
	return m
}

// parseQsubWords parses qsub words (command line or one directive) into
// options and the getopt split. Option values are checked here (the
// client-side checks PBS makes while parsing), so a bad value is reported
// with its option letter.
func parseQsubWords(words []string) (*qsubOpts, getoptArgs, error) {
	o := &qsubOpts{vals: map[byte]string{}, bools: map[byte]bool{}}
	var split getoptArgs
	err := parseOptions("qsub", qsubSpec, "lW", words, func(c *options, g getoptArgs) error {
		split = g
		for _, f := range presentFlags(c, qsubSpec) {
			name := flagName(f)
			switch _, hasValue := qsubSpec.takesValue(f); {
			case f == 'l':
				for _, v := range c.StringSlice(name) {
					if err := parseResourceArg(v, &o.res); err != nil {
						return err
					}
				}
			case f == 'W':
				for _, v := range c.StringSlice(name) {
					attrs, err := parseWAttrs(v)
					if err != nil {
						return err
					}
					for _, a := range attrs {
						if !qsubWAttrs[a.name] {
							return failErr(1, "-W %s is not supported by this Strata release yet", a.name)
						}
						if a.name == "block" {
							if _, err := model.ParseBool(a.value); err != nil {
								return errIllegalOpt('W')
							}
						}
						if a.name == "stagein" || a.name == "stageout" {
							if _, err := model.ParseStageList(a.value); err != nil {
								return errIllegalOpt('W')
							}
						}
					}
					o.w = append(o.w, attrs...)
				}
			case hasValue:
				o.vals[f] = c.String(name)
			default:
				o.bools[f] = c.Bool(name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, split, err
	}
	for f, v := range o.vals {
		if err := checkQsubValue(f, v); err != nil {
			return nil, split, err
		}
	}
	return o, split, nil
}

// mergeQsub overlays option sources, weakest first (the server's
// default_qsub_arguments, then the script's directives, then the command
// line): a later source wins option by option, and -l merges by resource
// name.
func mergeQsub(sources ...*qsubOpts) *qsubOpts {
	out := &qsubOpts{vals: map[byte]string{}, bools: map[byte]bool{}}
	for _, src := range sources {
		if src == nil {
			continue
		}
		for k, v := range src.vals {
			out.vals[k] = v
		}
		for k, v := range src.bools {
			out.bools[k] = out.bools[k] || v
		}
		out.res.merge(src.res)
		out.w = append(out.w, src.w...)
	}
	return out
}

// qsubWAttrs are the -W attributes qsub honours.
var qsubWAttrs = map[string]bool{"depend": true, "block": true, "group_list": true, "umask": true, "stagein": true, "stageout": true, "create_resv_from_job": true}

// wValue returns the last value of a -W attribute.
func (o *qsubOpts) wValue(name string) (string, bool) {
	v, ok := "", false
	for _, a := range o.w {
		if a.name == name {
			v, ok = a.value, true
		}
	}
	return v, ok
}

// errIllegalOpt is "illegal -X value", a usage error (exit 2).
func errIllegalOpt(f byte) *cmdError { return usageErr(2, "illegal -%c value", f) }

// checkQsubValue makes OpenPBS's client-side syntax checks of one option.
func checkQsubValue(f byte, v string) error {
	switch f {
	case 'N':
		if !validJobName(v) {
			return errIllegalOpt(f)
		}
	case 'j':
		if v != "oe" && v != "eo" && v != "n" {
			return errIllegalOpt(f)
		}
	case 'p':
		n, err := strconv.Atoi(v)
		if err != nil || n < -1024 || n > 1023 {
			return errIllegalOpt(f)
		}
	case 'r':
		if v != "y" && v != "n" {
			return errIllegalOpt(f)
		}
	case 'k':
		if !validLetters(v, "oed", "n") {
			return errIllegalOpt(f)
		}
	case 'm':
		if !validLetters(v, "abej", "n") {
			return errIllegalOpt(f)
		}
	case 'J':
		if _, err := model.ParseArraySpec(v); err != nil {
			return errIllegalOpt(f)
		}
	case 'e', 'o', 'S', 'A', 'P', 'M', 'q':
		if v == "" {
			return errIllegalOpt(f)
		}
	}
	return nil
}

// validJobName: 1 to 230 characters from [A-Za-z0-9._+-].
func validJobName(s string) bool {
	if s == "" || len(s) > 230 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			return false
		}
	}
	return true
}

// validLetters accepts alone, or a non-empty set of distinct letters from
// set (as -k oe or -m abe).
func validLetters(v, set, alone string) bool {
	if v == alone {
		return true
	}
	if v == "" {
		return false
	}
	seen := map[rune]bool{}
	for _, c := range v {
		if !strings.ContainsRune(set, c) || seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// errIllegalL is the -l parse error.
var errIllegalL = usageErr(2, "illegal -l value")

// parseResourceArg adds one -l argument ("a=1,b=2", commas inside quotes
// kept) to r.
func parseResourceArg(arg string, r *resourceList) error {
	entries, err := splitQuotedList(arg)
	if err != nil {
		return errIllegalL
	}
	for _, e := range entries {
		name, value, ok := strings.Cut(e, "=")
		if !ok || !validResourceName(name) || value == "" {
			return errIllegalL
		}
		r.set(name, value)
	}
	return nil
}

func validResourceName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// errUnbalancedQuote is returned for a list with an open quote.
var errUnbalancedQuote = errors.New("unbalanced quote")

// splitQuotedList splits "a,b='x,y',c" at the commas outside quotes and
// removes the quotes, which only serve to protect commas.
func splitQuotedList(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
		case c == ',':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if quote != 0 {
		return nil, errUnbalancedQuote
	}
	return append(out, cur.String()), nil
}

// unsupportedQsubOption returns the first option of o this release refuses.
func unsupportedQsubOption(o *qsubOpts) error {
	for i := 0; i < len(qsubUnsupported); i++ {
		f := qsubUnsupported[i]
		if _, ok := o.vals[f]; ok || o.bools[f] {
			return failErr(1, "option -%c is not supported by this Strata release yet", f)
		}
	}
	return nil
}

// directiveError words a bad directive.
func directiveError(words string) *cmdError {
	return failErr(1, "directive error: %s", words)
}
