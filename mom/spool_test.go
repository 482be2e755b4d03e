package mom

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/mom/shepherd"
)

// TestSpoolRecordFormats: the agent reads the job records it writes, the
// records an earlier agent left (no format field) and refuses a record of
// a later format instead of running a job it half understands.
func TestSpoolRecordFormats(t *testing.T) {
	j := &model.Job{ID: "7.srv", Name: "job", User: "alice", Script: "echo hi\n", RunCount: 2}
	dir := t.TempDir()
	if err := shepherd.WriteSpoolRecord(dir, j, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, fileJob))
	if err != nil {
		t.Fatal(err)
	}
	var stamp struct {
		Format int `json:"spool_format"`
	}
	if err := json.Unmarshal(raw, &stamp); err != nil || stamp.Format != spoolFormat {
		t.Errorf("record %s has no format", raw)
	}
	got, err := readJob(dir)
	if err != nil || got.ID != j.ID || got.Script != j.Script || got.RunCount != 2 {
		t.Fatalf("read back %+v, %v", got, err)
	}

	old := t.TempDir()
	if err := writeJSONAtomic(filepath.Join(old, fileJob), j, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := readJob(old); err != nil || got.ID != j.ID {
		t.Errorf("record without a format: %+v, %v", got, err)
	}

	newer := t.TempDir()
	if err := os.WriteFile(filepath.Join(newer, fileJob), []byte(`{"spool_format":2,"id":"7.srv"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readJob(newer); err == nil || !strings.Contains(err.Error(), "newer than this agent") {
		t.Errorf("newer record: %v", err)
	}
}
