package api

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestFramesRoundTrip: every frame qsub -I and the agent exchange reads
// back as written, data larger than a frame is split, and a peer cannot
// make the reader allocate more than a frame.
func TestFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewFrameWriter(&buf)
	big := bytes.Repeat([]byte("x"), MaxFramePayload+10)
	w.Write(FrameHello, HelloPayload("12.srv", "c00k1e"))
	w.Data(big)
	w.Winsize(40, 120)
	w.Write(FrameEOF, nil)
	w.Exit(-29)

	r := NewFrameReader(&buf)
	typ, p, err := r.Next()
	if id, cookie, ok := ParseHello(p); err != nil || typ != FrameHello || !ok || id != "12.srv" || cookie != "c00k1e" {
		t.Fatalf("hello: %c %q %v", typ, p, err)
	}
	var data []byte
	for range 2 {
		typ, p, err = r.Next()
		if err != nil || typ != FrameData {
			t.Fatalf("data frame: %c %v", typ, err)
		}
		data = append(data, p...)
	}
	if !bytes.Equal(data, big) {
		t.Fatalf("data: %d bytes back of %d", len(data), len(big))
	}
	typ, p, _ = r.Next()
	if rows, cols, ok := ParseWinsize(p); typ != FrameWinsize || !ok || rows != 40 || cols != 120 {
		t.Fatalf("winsize: %c %d %d", typ, rows, cols)
	}
	if typ, p, _ = r.Next(); typ != FrameEOF || len(p) != 0 {
		t.Fatalf("eof: %c %q", typ, p)
	}
	typ, p, _ = r.Next()
	if code, ok := ParseExit(p); typ != FrameExit || !ok || code != -29 {
		t.Fatalf("exit: %c %d", typ, code)
	}
	if _, _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v", err)
	}

	// Malformed payloads and frames.
	if _, _, ok := ParseWinsize([]byte{1}); ok {
		t.Error("short winsize accepted")
	}
	if _, ok := ParseExit(nil); ok {
		t.Error("empty exit accepted")
	}
	if _, _, ok := ParseHello([]byte("no separator")); ok {
		t.Error("hello without a separator accepted")
	}
	if err := w.Write(FrameData, big); err == nil {
		t.Error("an oversized frame was written")
	}
	huge := NewFrameReader(bytes.NewReader([]byte{FrameData, 0xff, 0xff, 0xff, 0xff}))
	if _, _, err := huge.Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("a 4 GiB frame header: %v", err)
	}
}

func TestProvisionWorkKey(t *testing.T) {
	p := &ProvisionWork{Host: "n1", AOE: "rhel9", Attempt: 2, Started: 1700000000}
	if got := p.Key(); got != "n1-rhel9-2-1700000000" {
		t.Errorf("key %q", got)
	}
}
