package server

import "testing"

func TestHostACLMatch(t *testing.T) {
	for _, tc := range []struct {
		acl  []string
		host string
		want bool
	}{
		{nil, "login1", false},
		{[]string{"login1"}, "login1", true},
		{[]string{"LOGIN1"}, "login1", true},
		{[]string{"login1"}, "login1.example.com", true},
		{[]string{"login1.example.com"}, "login1", true},
		{[]string{"login1.example.com"}, "login1.example.com", true},
		{[]string{"login1"}, "login10", false},
		{[]string{"*.example.com"}, "login1.example.com", true},
		{[]string{"*.example.com"}, "login1.other.org", false},
		{[]string{"*"}, "anything", true},
		{[]string{"+login1"}, "login1", true},
		{[]string{"-login1", "*"}, "login1", false},
		{[]string{"-login1", "*"}, "login2", true},
	} {
		if got := hostACLMatch(tc.acl, tc.host); got != tc.want {
			t.Errorf("hostACLMatch(%q, %q) = %v, want %v", tc.acl, tc.host, got, tc.want)
		}
	}
}
