package api

import (
	"io"

	"github.com/strata-hpc/strata/server/api/ttyframe"
)

// The interactive session protocol (qsub -I) lives in package ttyframe,
// which imports nothing but the standard library, so that the job's
// shepherd (cmd/strata-shepherd) speaks it without linking the API client.
// These are its names as qsub and the server use them.

// Frame types.
const (
	FrameHello   = ttyframe.FrameHello
	FrameData    = ttyframe.FrameData
	FrameWinsize = ttyframe.FrameWinsize
	FrameEOF     = ttyframe.FrameEOF
	FrameExit    = ttyframe.FrameExit
)

// MaxFramePayload bounds a frame.
const MaxFramePayload = ttyframe.MaxFramePayload

// InteractiveCookieLen is the length of a session cookie in hex digits.
const InteractiveCookieLen = ttyframe.InteractiveCookieLen

// ErrFrameTooLarge is returned for a frame longer than MaxFramePayload.
var ErrFrameTooLarge = ttyframe.ErrFrameTooLarge

type (
	// FrameWriter writes frames.
	FrameWriter = ttyframe.FrameWriter
	// FrameReader reads frames.
	FrameReader = ttyframe.FrameReader
)

// NewFrameWriter writes frames to w.
func NewFrameWriter(w io.Writer) *FrameWriter { return ttyframe.NewFrameWriter(w) }

// NewFrameReader reads frames from r.
func NewFrameReader(r io.Reader) *FrameReader { return ttyframe.NewFrameReader(r) }

// HelloPayload is the payload of the agent's Hello frame.
func HelloPayload(jobID, cookie string) []byte { return ttyframe.HelloPayload(jobID, cookie) }

// ParseHello splits a Hello payload.
func ParseHello(p []byte) (jobID, cookie string, ok bool) { return ttyframe.ParseHello(p) }

// ParseWinsize decodes a Winsize payload.
func ParseWinsize(p []byte) (rows, cols uint16, ok bool) { return ttyframe.ParseWinsize(p) }

// ParseExit decodes an Exit payload.
func ParseExit(p []byte) (int, bool) { return ttyframe.ParseExit(p) }
