package manager

import (
	"path/filepath"
	"strings"
)

// mail_from and mail_program (docs/configuration.md, "Mail"). The program
// is run by the server's user: only an absolute path is accepted, and only
// managers set server attributes (as they do hooks, which run as that
// user too).

func setMailFrom(dst *string, a Attr) error {
	if a.Op == "" {
		*dst = ""
		return nil
	}
	v := strings.TrimSpace(a.Value)
	if a.Op != "=" || !ValidMailAddress(v) {
		return badValue(a)
	}
	*dst = v
	return nil
}

func setMailProgram(dst *string, a Attr) error {
	if a.Op == "" {
		*dst = ""
		return nil
	}
	v := strings.TrimSpace(a.Value)
	if a.Op != "=" || !filepath.IsAbs(v) || strings.ContainsAny(v, "\x00\n\r") || filepath.Clean(v) != v {
		return badValue(a)
	}
	*dst = v
	return nil
}

// ValidMailAddress accepts "user" or "user@host" in the characters mail
// addresses use here; never a leading "-" (it would be an option to the
// mail program) nor anything that could end a header line.
func ValidMailAddress(s string) bool {
	if s == "" || len(s) > 256 || s[0] == '-' || s[0] == '@' {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("._+-@", c):
		default:
			return false
		}
	}
	return strings.Count(s, "@") <= 1
}
