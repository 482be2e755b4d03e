package model

import (
	"strings"
	"testing"
	"time"
)

// A value with a newline must not start a second accounting record.
func TestAcctLineEscapesControlCharacters(t *testing.T) {
	forged := "x\n11/26/2026 10:00:00;E;99.svr;user=root Exit_status=0\r\x00"
	r := &AcctRecord{Time: 0, Type: AcctQueued, ID: "1.svr\n", Msg: "account=" + AcctValue(forged) + " queue=q\nE"}
	line := r.Line(time.UTC)
	if strings.ContainsAny(line, "\n\r\x00") {
		t.Fatalf("line holds a control character: %q", line)
	}
	if !strings.Contains(line, `account="x\n11/26/2026`) || !strings.Contains(line, `\r\x00`) {
		t.Fatalf("escaped value not visible: %q", line)
	}
	if AcctValue("a b") != `"a b"` || AcctValue("plain") != "plain" {
		t.Fatal("AcctValue changed for ordinary values")
	}
}
