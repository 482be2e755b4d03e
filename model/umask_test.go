package model

import "testing"

func TestParseUmask(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "22": 0o22, "077": 0o77, "0777": 0o777, "000027": 0o27} {
		if v, ok := ParseUmask(s); !ok || v != want {
			t.Errorf("ParseUmask(%q) = %o, %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "8", "1000", "-1", "abc", "0x22", "99999999999999999999999"} {
		if _, ok := ParseUmask(s); ok {
			t.Errorf("ParseUmask(%q) accepted", s)
		}
	}
	if (&Job{}).JobUmask() != 0o77 || (&Job{JobExt: &JobExt{Umask: "22"}}).JobUmask() != 0o22 {
		t.Errorf("JobUmask default or value wrong")
	}
}
