package ttyframe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The interactive session protocol (qsub -I). As in PBS, qsub listens on a
// port of the submission host and the job's mother superior agent connects
// back once the job starts. The agent speaks first: a Hello frame with the
// job id and the session cookie qsub put in the job (a 256-bit secret only
// the server and the job's agent see: qstat leaves it out), so a
// connection from anyone else is dropped. After that, frames flow both ways
// until the agent sends Exit.
//
// A frame is a type byte, a 4-byte big-endian length and the payload.

// Frame types.
const (
	FrameHello   byte = 'H' // agent -> qsub: job id, NUL, cookie
	FrameData    byte = 'D' // both ways: terminal bytes
	FrameWinsize byte = 'W' // qsub -> agent: rows, cols (2 bytes each)
	FrameEOF     byte = 'E' // qsub -> agent: qsub's input ended
	FrameExit    byte = 'X' // agent -> qsub: the job's exit status (4 bytes, signed)
)

// MaxFramePayload bounds a frame: a peer cannot make the other allocate
// more than this per frame.
const MaxFramePayload = 64 << 10

// InteractiveCookieLen is the length of a session cookie in hex digits.
const InteractiveCookieLen = 64

// FrameWriter writes frames; it is safe for concurrent use (the terminal
// relay and the window-size watcher write at the same time).
type FrameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewFrameWriter returns a FrameWriter on w.
func NewFrameWriter(w io.Writer) *FrameWriter { return &FrameWriter{w: w} }

// Write sends one frame.
func (f *FrameWriter) Write(typ byte, payload []byte) error {
	if len(payload) > MaxFramePayload {
		return fmt.Errorf("frame of %d bytes exceeds %d", len(payload), MaxFramePayload)
	}
	var hdr [5]byte
	hdr[0] = typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := f.w.Write(payload)
	return err
}

// Data sends terminal bytes, split into frames of at most MaxFramePayload.
func (f *FrameWriter) Data(b []byte) error {
	for len(b) > 0 {
		n := min(len(b), MaxFramePayload)
		if err := f.Write(FrameData, b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// Winsize sends a terminal size.
func (f *FrameWriter) Winsize(rows, cols uint16) error {
	var p [4]byte
	binary.BigEndian.PutUint16(p[0:], rows)
	binary.BigEndian.PutUint16(p[2:], cols)
	return f.Write(FrameWinsize, p[:])
}

// Exit sends the job's exit status.
func (f *FrameWriter) Exit(status int) error {
	var p [4]byte
	binary.BigEndian.PutUint32(p[:], uint32(int32(status)))
	return f.Write(FrameExit, p[:])
}

// FrameReader reads frames.
type FrameReader struct {
	r   *bufio.Reader
	buf []byte
}

// NewFrameReader returns a FrameReader on r.
func NewFrameReader(r io.Reader) *FrameReader { return &FrameReader{r: bufio.NewReader(r)} }

// ErrFrameTooLarge is returned for a frame over MaxFramePayload.
var ErrFrameTooLarge = errors.New("interactive session: frame too large")

// Next returns the next frame. The payload is valid until the next call.
func (f *FrameReader) Next() (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxFramePayload {
		return 0, nil, ErrFrameTooLarge
	}
	if cap(f.buf) < int(n) {
		f.buf = make([]byte, n)
	}
	p := f.buf[:n]
	if _, err := io.ReadFull(f.r, p); err != nil {
		return 0, nil, err
	}
	return hdr[0], p, nil
}

// ParseWinsize reads a Winsize payload.
func ParseWinsize(p []byte) (rows, cols uint16, ok bool) {
	if len(p) != 4 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint16(p[0:]), binary.BigEndian.Uint16(p[2:]), true
}

// ParseExit reads an Exit payload.
func ParseExit(p []byte) (int, bool) {
	if len(p) != 4 {
		return 0, false
	}
	return int(int32(binary.BigEndian.Uint32(p))), true
}

// HelloPayload is the agent's first frame.
func HelloPayload(jobID, cookie string) []byte { return []byte(jobID + "\x00" + cookie) }

// ParseHello splits a Hello payload.
func ParseHello(p []byte) (jobID, cookie string, ok bool) {
	for i, b := range p {
		if b == 0 {
			return string(p[:i]), string(p[i+1:]), true
		}
	}
	return "", "", false
}
