package pbscmd

import (
	"regexp"
	"testing"
)

// jsonNumberGrammar is the grammar isJSONNumber implements, as the regexp
// it replaced: the oracle of FuzzJSONNumber.
var jsonNumberGrammar = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// FuzzJSONNumber: the hand-written check accepts exactly what the grammar
// does (qstat -F json prints such values as numbers, others as strings).
func FuzzJSONNumber(f *testing.F) {
	for _, v := range []string{"", "-", "0", "-0", "1.", ".5", "1.5", "1e5", "1E-5", "1e+", "-1.5e+10", "0x10", "inf", "nan", "1.5.5", "1e5e5", "+1", " 1", "1.e5"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if want := jsonNumberGrammar.MatchString(v); isJSONNumber(v) != want {
			t.Errorf("isJSONNumber(%q) = %v, the grammar says %v", v, !want, want)
		}
	})
}
