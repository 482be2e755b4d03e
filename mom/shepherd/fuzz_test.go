package shepherd

import "testing"

// FuzzParseSignal checks qsig's signal names as the agent reads them: a
// known action with a real signal number (0 only for the null signal).
func FuzzParseSignal(f *testing.F) {
	for _, s := range []string{"SIGTERM", "term", "9", "0", "suspend", "admin-resume", "SIGNULL", "sigiot", "65", "-1", "SIGRTMIN+3", "bogus"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		sig, act, err := parseSignal(name)
		if err != nil {
			return
		}
		if sig < 0 || sig > 64 || (sig == 0) != (act == actNull) {
			t.Fatalf("parseSignal(%q) = %d, %v", name, sig, act)
		}
	})
}
