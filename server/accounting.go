package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// The accounting log. The FSM turns committed transitions into records in
// a bounded replicated table (raftstore/accounting.go), so every server
// holds the same records with the same sequence numbers. Every server, not
// only the leader, runs an acctWriter that appends the records it has not
// written yet to <data_dir>/accounting/YYYYMMDD and persists, after each
// fsync'd batch, the last sequence number written and the file's size. On
// start it truncates the current file back to that size (a batch cut by a
// crash is written again, whole) and resumes after that number. Each
// server's log is therefore complete and has each record once, whatever
// leader changes, restarts or snapshot restores happen; a server that falls
// more than the table's bound behind logs the gap.

// acctState is what the writer persists in <dir>/.written.
type acctState struct {
	Seq  uint64 `json:"seq"`
	File string `json:"file"` // base name of the file last written
	Size int64  `json:"size"` // its size after the last batch
}

type acctWriter struct {
	dir string
	loc *time.Location
	st  acctState
}

const acctStateFile = ".written"

// openAcctWriter loads the writer's state and repairs the file it was
// writing: bytes past the recorded size belong to a batch that was not
// recorded as written.
func openAcctWriter(dir string, loc *time.Location) (*acctWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &acctWriter{dir: dir, loc: loc}
	b, err := os.ReadFile(filepath.Join(dir, acctStateFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return w, nil
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(b, &w.st); err != nil {
		return nil, fmt.Errorf("accounting state %s: %w", filepath.Join(dir, acctStateFile), err)
	}
	if w.st.File != "" {
		path := filepath.Join(dir, w.st.File)
		if fi, err := os.Stat(path); err == nil && fi.Size() > w.st.Size {
			if err := os.Truncate(path, w.st.Size); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

func (w *acctWriter) save() error {
	b, _ := json.Marshal(w.st)
	tmp := filepath.Join(w.dir, acctStateFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(w.dir, acctStateFile))
}

// write appends records (in Seq order, all after w.st.Seq) to their daily
// files.
func (w *acctWriter) write(recs []*model.AcctRecord) error {
	for len(recs) > 0 {
		day := recs[0].Day(w.loc)
		n := 1
		for n < len(recs) && recs[n].Day(w.loc) == day {
			n++
		}
		if err := w.writeDay(day, recs[:n]); err != nil {
			return err
		}
		recs = recs[n:]
	}
	return nil
}

func (w *acctWriter) writeDay(day string, recs []*model.AcctRecord) error {
	path := filepath.Join(w.dir, day)
	if w.st.File != day {
		// Record the new file and its size before appending to it, so
		// a crash mid-batch is repaired in the right file.
		var size int64
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
		w.st.File, w.st.Size = day, size
		if err := w.save(); err != nil {
			return err
		}
	}
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r.Line(w.loc))
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	n, err := f.WriteString(b.String())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	w.st.Size += int64(n)
	w.st.Seq = recs[len(recs)-1].Seq
	return w.save()
}

// acctWriteInterval is the shortest time between two accounting writes.
const acctWriteInterval = 250 * time.Millisecond

// accountingLoop runs on every server for its whole life.
func (s *Server) accountingLoop(ctx context.Context) {
	w, err := openAcctWriter(filepath.Join(s.cfg.DataDir, "accounting"), time.Local)
	if err != nil {
		s.logger.Printf("accounting: %v; no accounting log on this server", err)
		return
	}
	gapLogged := false
	var lastWrite time.Time
	for {
		// Records are durable in the Raft log already; writing them at most
		// a few times a second keeps the file's fsyncs off the submission
		// path's disk budget however fast jobs arrive.
		if wait := acctWriteInterval - time.Since(lastWrite); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		snap := s.state()
		ws := snap.AcctWatch()
		if t := snap.AcctTrimmed(); t > w.st.Seq && !gapLogged {
			s.logger.Printf("accounting: records up to %d were dropped from the replicated table before this server wrote them (last written %d)", t, w.st.Seq)
			gapLogged = true
		}
		recs := snap.AcctRecords(w.st.Seq, 1000)
		if len(recs) > 0 {
			lastWrite = time.Now()
			if err := w.write(recs); err != nil {
				s.logger.Printf("accounting: %v", err)
			} else {
				continue
			}
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		ws.WatchCtx(wctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
	}
}
