package model

import (
	"fmt"
	"strings"
	"time"
)

// Accounting record types, as OpenPBS writes them in server_priv/accounting.
const (
	AcctQueued    = "Q"
	AcctStarted   = "S"
	AcctEnded     = "E"
	AcctDeleted   = "D"
	AcctRerun     = "R"
	AcctProvStart = "P"
	AcctProvEnd   = "p"
)

// AcctRecord is one accounting record. The FSM creates it from a committed
// transition, so every server holds the same records with the same Seq
// (the Raft index of the entry that made it, shifted, plus its rank in
// that entry): Seq orders records and tells a writer which it has written.
type AcctRecord struct {
	Seq  uint64 `json:"seq"`
	Time int64  `json:"t"`
	Type string `json:"type"`
	ID   string `json:"id"`
	// Msg is the key=value part, already formatted.
	Msg string `json:"msg"`
}

// AcctTimeLayout is the date and time of an accounting line (local time).
const AcctTimeLayout = "01/02/2006 15:04:05"

// Line is the record as one line of the accounting log, without the
// newline: "MM/DD/YYYY HH:MM:SS;<type>;<id>;<message>".
func (r *AcctRecord) Line(loc *time.Location) string {
	// Escaped here as well as in AcctValue: whatever a record holds, it is
	// one line, so no value can forge another record.
	return time.Unix(r.Time, 0).In(loc).Format(AcctTimeLayout) + ";" + AcctEscape(r.Type) + ";" + AcctEscape(r.ID) + ";" + AcctEscape(r.Msg)
}

// AcctEscape writes control characters other than tab (and DEL) as \n, \r
// or \xNN, so that a value can never end an accounting line. The server
// refuses such characters in free-text attributes; this is the second line
// of defence.
func AcctEscape(v string) string {
	clean := true
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case (c < 0x20 && c != '\t') || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Day is the name of the daily accounting file that holds the record
// (YYYYMMDD, local time), as PBS names them.
func (r *AcctRecord) Day(loc *time.Location) string {
	return time.Unix(r.Time, 0).In(loc).Format("20060102")
}

// AcctValue quotes a value that holds a space (PBS quotes such values in
// accounting records); other values are written as they are.
func AcctValue(v string) string {
	v = AcctEscape(v)
	if strings.ContainsAny(v, " \t") {
		return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
	}
	return v
}
