package server

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// The event log (PBS's server log): <data_dir>/server_logs/YYYYMMDD, one
// line per event in PBS's format
//
//	11/26/2026 10:15:02;0x0008;Server@host1;Job;12.host1;Job Queued at request of alice@login1, owner = ...
//
// The state machine describes what each committed entry did
// (raftstore/eventlog.go), so every server writes the same lines for the
// same entries, follower or leader. The server's own diagnostics (Raft,
// TLS, loops) stay in its process log: one format per file. log_events
// (a mask of model.Log* classes, default 511) filters the lines. After a
// restart, Raft replays the entries after its latest snapshot; the index
// of the last entry written (server_logs/.written) keeps their lines from
// being written twice (a crash may repeat up to one batch).

const (
	eventLogDir   = "server_logs"
	eventLogState = ".written"
	eventLogQueue = 4096 // batches waiting to be written before apply waits
)

type eventLog struct {
	dir    string
	daemon string // "Server@host"
	loc    *time.Location
	mask   func() int
	logger *log.Logger
	in     chan []model.LogEvent
	last   uint64 // highest entry index written
	// file is the day's log, kept open between batches (opened again when
	// the day changes); name is its base name.
	file *os.File
	name string
	// state is server_logs/.written, kept open: every batch rewrites it in
	// place (one pwrite of a fixed-width number) rather than by open,
	// truncate, write and close, which cost 7 % of the server's CPU per
	// qsub.
	state *os.File
}

func openEventLog(dataDir, host string, mask func() int, logger *log.Logger) (*eventLog, error) {
	dir := filepath.Join(dataDir, eventLogDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("event log directory: %w", err)
	}
	l := &eventLog{dir: dir, daemon: "Server@" + host, loc: time.Local, mask: mask, logger: logger,
		in: make(chan []model.LogEvent, eventLogQueue)}
	if b, err := os.ReadFile(filepath.Join(dir, eventLogState)); err == nil {
		l.last, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	}
	return l, nil
}

// submit hands a committed batch's events over (FSM.OnEvents).
func (l *eventLog) submit(evs []model.LogEvent) { l.in <- evs }

// run writes batches until ctx ends.
func (l *eventLog) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			if l.file != nil {
				l.file.Close()
			}
			if l.state != nil {
				l.state.Close()
			}
			return
		case evs := <-l.in:
			if err := l.write(evs); err != nil {
				l.logger.Printf("event log: %v", err)
			}
		}
	}
}

func (l *eventLog) write(evs []model.LogEvent) error {
	mask := l.mask()
	var w *bufio.Writer
	last := l.last
	for _, ev := range evs {
		if ev.Index <= l.last {
			continue // written before this restart
		}
		last = max(last, ev.Index)
		if ev.Type&mask == 0 {
			continue
		}
		t := time.Unix(ev.Time, 0).In(l.loc)
		if name := t.Format("20060102"); name != l.name || w == nil {
			if w != nil {
				if err := w.Flush(); err != nil {
					return err
				}
			}
			f, err := l.open(name)
			if err != nil {
				return err
			}
			w = bufio.NewWriter(f)
		}
		fmt.Fprintf(w, "%s;0x%04x;%s;%s;%s;%s\n", t.Format("01/02/2006 15:04:05"), ev.Type, l.daemon, ev.Class, ev.ID, oneLine(ev.Msg))
	}
	if w != nil {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if last != l.last {
		l.last = last
		return l.writeState(last)
	}
	return nil
}

// writeState records the last index written. The number is zero-padded to
// the width of any uint64, so each write covers the previous record whole,
// an earlier release's shorter one included, and the file is never
// truncated (a crash between a truncation and the write would lose the
// index and repeat every line since the snapshot); openEventLog parses
// either form.
func (l *eventLog) writeState(last uint64) error {
	if l.state == nil {
		f, err := os.OpenFile(filepath.Join(l.dir, eventLogState), os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		l.state = f
	}
	_, err := l.state.WriteAt([]byte(fmt.Sprintf("%020d\n", last)), 0)
	return err
}

// open returns the file of day name, keeping it open for later batches.
func (l *eventLog) open(name string) (*os.File, error) {
	if l.file != nil && l.name == name {
		return l.file, nil
	}
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
	f, err := os.OpenFile(filepath.Join(l.dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l.file, l.name = f, name
	return f, nil
}

// oneLine keeps a line a line: a message never carries a newline into the
// log (free text is refused with control characters, but be sure).
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
