package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

func acctRec(seq uint64, t int64, typ, id, msg string) *model.AcctRecord {
	return &model.AcctRecord{Seq: seq, Time: t, Type: typ, ID: id, Msg: msg}
}

// TestAcctWriterExactlyOnce: records go to their daily files; after a
// crash that left half a batch unrecorded, a restarted writer truncates it
// and writes the batch again, so no line is lost or doubled.
func TestAcctWriterExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	w, err := openAcctWriter(dir, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	day1 := int64(86400*3 + 100) // 01/04/1970
	if err := w.write([]*model.AcctRecord{
		acctRec(1<<16|1, day1, "Q", "1.s", "queue=workq"),
		acctRec(2<<16|1, day1+5, "S", "1.s", "user=a"),
	}); err != nil {
		t.Fatal(err)
	}
	// A crash after appending a batch but before recording it.
	f, _ := os.OpenFile(filepath.Join(dir, "19700104"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("01/04/1970 00:02:00;E;1.s;torn")
	f.Close()

	w2, err := openAcctWriter(dir, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if w2.st.Seq != 2<<16|1 {
		t.Fatalf("resumed after %d", w2.st.Seq)
	}
	if err := w2.write([]*model.AcctRecord{
		acctRec(3<<16|1, day1+20, "E", "1.s", "user=a Exit_status=0"),
		acctRec(4<<16|1, day1+86400, "Q", "2.s", "queue=workq"),
	}); err != nil {
		t.Fatal(err)
	}
	got1, _ := os.ReadFile(filepath.Join(dir, "19700104"))
	want1 := "01/04/1970 00:01:40;Q;1.s;queue=workq\n01/04/1970 00:01:45;S;1.s;user=a\n01/04/1970 00:02:00;E;1.s;user=a Exit_status=0\n"
	if string(got1) != want1 {
		t.Fatalf("day 1:\n%s\nwant:\n%s", got1, want1)
	}
	got2, _ := os.ReadFile(filepath.Join(dir, "19700105"))
	if string(got2) != "01/05/1970 00:01:40;Q;2.s;queue=workq\n" {
		t.Fatalf("day 2: %q", got2)
	}
	// Restarting again with nothing new changes nothing.
	w3, _ := openAcctWriter(dir, time.UTC)
	if w3.st.Seq != 4<<16|1 || w3.st.File != "19700105" {
		t.Fatalf("state %+v", w3.st)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "19700105")); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("day 2 after restart: %q", b)
	}
}
