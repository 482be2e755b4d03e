package pbscmd

import (
	"strings"
	"time"

	"github.com/strata-hpc/strata/model/pbsattr"
)

// formatCtime prints epoch seconds in ctime style in loc: every PBS
// command prints times this way, and scripts parse it.
func formatCtime(epoch int64, loc *time.Location) string {
	return pbsattr.FormatCtime(epoch, loc)
}

// truncMark cuts s to width when it is longer, making the last visible
// character '*' so the user sees the value was cut (PBS's DISPLAY_TRUNC_CHAR).
func truncMark(s string, width int) string {
	if width <= 0 || len(s) <= width {
		return s
	}
	return s[:width-1] + "*"
}

// truncMarkAt cuts s to keep-1 characters plus '*' once it reaches limit
// characters. qstat's Name column uses this form: a name of 16 or more
// characters is shown as its first 15 plus '*', so the cut is triggered one
// character earlier than truncMark would.
func truncMarkAt(s string, limit int) string {
	if len(s) < limit {
		return s
	}
	return s[:limit-1] + "*"
}

// foldLimit is the column qstat -f and the other "name = value" dumps fold
// before (CHAR_LINE_LIMIT in OpenPBS).
const foldLimit = 78

// writeFolded writes one "    name[.resource] = value" line the way
// OpenPBS's prt_attr does: the value is split at commas, the pieces are
// placed while they fit before column 78, a piece that does not fit starts a
// new line beginning with a TAB, and a piece too long for any line is cut
// character by character. The counting quirks (the comma is not counted, a
// continuation line starts at 9, a cut line at 8) are kept on purpose so the
// output matches OpenPBS byte for byte. No newline is written at the end.
func writeFolded(b *strings.Builder, name, resource, value string) {
	start := len(name) + 7 // 4 spaces + " = "
	b.WriteString("    " + name)
	if resource != "" {
		start += len(resource) + 1
		b.WriteString("." + resource)
	}
	b.WriteString(" = ")
	pieces := commaPieces(value)
	for i, p := range pieces {
		if len(p)+start < foldLimit {
			b.WriteString(p)
			start += len(p)
		} else {
			if i > 0 {
				b.WriteString("\n\t")
				start = 9
			}
			for j := 0; j < len(p); j++ {
				b.WriteByte(p[j])
				start++
				// Break only when more of the piece follows: a break after
				// its last byte would leave a line holding only a tab.
				if start > foldLimit && j < len(p)-1 {
					start = 8
					b.WriteString("\n\t")
				}
			}
		}
		if i < len(pieces)-1 {
			b.WriteByte(',')
		}
	}
}

// commaPieces splits like strtok(v, ","): empty pieces vanish.
func commaPieces(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writeOneLine writes "    name[.resource] = value" unfolded, as -w asks;
// newlines and form feeds in the value become \n and \f so that one attribute
// stays on one line.
func writeOneLine(b *strings.Builder, name, resource, value string) {
	b.WriteString("    " + name)
	if resource != "" {
		b.WriteString("." + resource)
	}
	b.WriteString(" = ")
	b.WriteString(escapeFeeds(value))
}

// escapeFeeds shows newlines and form feeds as \n and \f.
func escapeFeeds(v string) string {
	return strings.NewReplacer("\n", `\n`, "\f", `\f`).Replace(v)
}

// escapeDelim backslash-escapes the delimiter inside a -F dsv value and
// shows newlines as \n.
func escapeDelim(v, delim string) string {
	if delim != "" {
		v = strings.ReplaceAll(v, delim, `\`+delim)
	}
	return escapeFeeds(v)
}

// padLeft and padRight are %-Ns and %Ns for strings.
func padRight(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-len(s))
}

func padLeft(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}
