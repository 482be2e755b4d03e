// Package munge authenticates users with MUNGE, the credential service of
// HPC sites (OpenPBS and Slurm use it): a client asks its local munged for a
// credential that carries its uid and gid and a payload; a server on
// another host, whose munged holds the same key, decodes it and learns who
// made it, on which host and when.
//
// Strata runs the programs shipped with MUNGE, munge(1) and unmunge(1),
// rather than linking libmunge or speaking munged's socket protocol:
//
//   - they are MUNGE's documented, stable command-line interface; the
//     message format on munged's socket is internal to MUNGE and changes
//     between releases, and libmunge would need cgo, a C compiler and the
//     development package at build time, where Strata builds as a static Go
//     binary with nothing but the Go toolchain;
//   - the decoding (key, MAC, expiry, the replay cache) stays entirely in
//     munged; this package only parses unmunge's numeric output;
//   - a fork per decoded request costs about a millisecond, small beside
//     the Raft commit behind every write. The server bounds how many
//     unmunge processes run at once (Decoder), so unauthenticated callers
//     cannot turn that cost into a fork storm, and refuses oversized
//     credentials before starting any process.
package munge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// MaxCredential bounds an encoded credential. Strata's payload is a
// 64-character hash, which makes credentials of about 200 bytes; anything
// much larger is not one of ours and is refused before unmunge runs.
const MaxCredential = 2048

// MUNGE error numbers (munge.h, munge_err_t); unmunge exits with them.
const (
	StatusSocket       = 6
	StatusExpired      = 15
	StatusRewound      = 16
	StatusReplayed     = 17
	StatusUnauthorized = 18
)

var statusText = map[int]string{
	1: "Internal error", 2: "Invalid argument", 3: "Exceeded maximum message length",
	4: "Buffer overflow", 5: "Out of memory", StatusSocket: "Socket communication error",
	7: "Socket timeout", 8: "Invalid credential format", 9: "Invalid credential version",
	10: "Invalid cipher type", 11: "Invalid MAC type", 12: "Invalid compression type",
	13: "Invalid security realm", 14: "Invalid credential", StatusExpired: "Expired credential",
	StatusRewound: "Rewound credential", StatusReplayed: "Replayed credential",
	StatusUnauthorized: "Unauthorized credential",
}

// Error is a failure reported by munge or unmunge.
type Error struct {
	Status int    // MUNGE error number, 0 when the program did not say
	Msg    string // what the program said
}

func (e *Error) Error() string { return "munge: " + e.Msg }

// Credential is what a decoded credential proves.
type Credential struct {
	UID, GID   int
	Addr       net.IP // the encoding host's address (its munged's origin)
	EncodeTime time.Time
	TTL        time.Duration
	Payload    []byte
}

// Client obtains credentials from the local munged.
type Client struct {
	// Program is the munge program; "" finds "munge" in PATH.
	Program string
	// Socket is munged's socket; "" is MUNGE's default.
	Socket string
	// TTL is the credential's time-to-live in seconds; 0 is munged's
	// default (300 s).
	TTL int
}

// Encode returns a fresh credential carrying payload.
func (c *Client) Encode(ctx context.Context, payload []byte) (string, error) {
	prog := c.Program
	if prog == "" {
		prog = "munge"
	}
	args := []string{}
	if c.Socket != "" {
		args = append(args, "--socket="+c.Socket)
	}
	if c.TTL > 0 {
		args = append(args, "--ttl="+strconv.Itoa(c.TTL))
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin = bytes.NewReader(payload)
	var out, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, max: 4 * MaxCredential}
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	if err := cmd.Run(); err != nil {
		return "", programError(err, stderr.String())
	}
	cred := strings.TrimSpace(out.String())
	if cred == "" || len(cred) > MaxCredential {
		return "", &Error{Msg: fmt.Sprintf("munge produced a credential of %d bytes", len(cred))}
	}
	return cred, nil
}

// Decoder decodes credentials with the local munged. It bounds the
// unmunge processes running at once; further callers wait for a slot or
// for their context.
type Decoder struct {
	program string
	socket  string
	slots   chan struct{}
}

// NewDecoder finds the unmunge program (program "" looks up "unmunge" in
// PATH) and allows at most concurrent decodings at a time.
func NewDecoder(program, socket string, concurrent int) (*Decoder, error) {
	if program == "" {
		program = "unmunge"
	}
	path, err := exec.LookPath(program)
	if err != nil {
		return nil, fmt.Errorf("munge: %w (install the munge package)", err)
	}
	if concurrent < 1 {
		concurrent = 1
	}
	return &Decoder{program: path, socket: socket, slots: make(chan struct{}, concurrent)}, nil
}

// Decode asks munged what cred proves. A credential that munged refuses
// (expired, replayed, wrong key, malformed) is an *Error with its status.
func (d *Decoder) Decode(ctx context.Context, cred string) (*Credential, error) {
	if len(cred) > MaxCredential {
		return nil, &Error{Status: 3, Msg: fmt.Sprintf("credential of %d bytes exceeds %d", len(cred), MaxCredential)}
	}
	if !strings.HasPrefix(cred, "MUNGE:") {
		return nil, &Error{Status: 8, Msg: statusText[8]}
	}
	select {
	case d.slots <- struct{}{}:
		defer func() { <-d.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	args := []string{"--numeric"}
	if d.socket != "" {
		args = append(args, "--socket="+d.socket)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.program, args...)
	cmd.Env = []string{} // nothing of the server's environment
	cmd.Stdin = strings.NewReader(cred)
	var out, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, max: 64 << 10}
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	if err := cmd.Run(); err != nil {
		return nil, programError(err, stderr.String())
	}
	return parseUnmunge(out.Bytes())
}

// parseUnmunge reads unmunge --numeric output: "KEY: value" lines, a blank
// line, then the payload.
func parseUnmunge(b []byte) (*Credential, error) {
	meta, payload, ok := bytes.Cut(b, []byte("\n\n"))
	if !ok {
		return nil, &Error{Msg: "unreadable unmunge output"}
	}
	c := &Credential{UID: -1, GID: -1}
	length := -1
	sc := bufio.NewScanner(bytes.NewReader(meta))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		n, numErr := strconv.ParseInt(val, 10, 64)
		switch key {
		case "STATUS":
			if numErr != nil || n != 0 {
				return nil, &Error{Status: int(n), Msg: "unmunge status " + val}
			}
		case "ENCODE_HOST":
			c.Addr = net.ParseIP(val)
		case "ENCODE_TIME":
			c.EncodeTime = time.Unix(n, 0)
		case "TTL":
			c.TTL = time.Duration(n) * time.Second
		case "UID":
			c.UID = int(n)
		case "GID":
			c.GID = int(n)
		case "LENGTH":
			length = int(n)
		}
		if numErr != nil && key != "ENCODE_HOST" {
			return nil, &Error{Msg: fmt.Sprintf("unreadable unmunge field %s: %q", key, val)}
		}
	}
	if c.UID < 0 || c.GID < 0 || c.Addr == nil || length < 0 || length > len(payload) {
		return nil, &Error{Msg: "incomplete unmunge output"}
	}
	c.Payload = payload[:length]
	return c, nil
}

// programError turns a failed munge or unmunge run into an *Error: the
// exit status is MUNGE's error number.
func programError(err error, stderr string) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return &Error{Msg: err.Error()}
	}
	status := ee.ExitCode()
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndex(msg, "Error: "); i >= 0 {
		msg = msg[i+len("Error: "):]
	}
	if t, ok := statusText[status]; ok && (msg == "" || strings.Contains(msg, t)) {
		msg = t
	}
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", status)
	}
	return &Error{Status: status, Msg: msg}
}

// limitedBuffer keeps at most max bytes and discards the rest, so a
// runaway program cannot grow the caller's memory.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

var _ io.Writer = (*limitedBuffer)(nil)
