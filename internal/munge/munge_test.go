package munge_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/internal/munge/mungetest"
)

// A credential round-trips through a real munged: payload, uid and gid
// come back; the second decoding is a replay; a credential from another
// key is invalid.
func TestEncodeDecodeReplay(t *testing.T) {
	sock := mungetest.Start(t)
	ctx := context.Background()
	cred, err := (&munge.Client{Socket: sock}).Encode(ctx, []byte("bound-payload"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := munge.NewDecoder("", sock, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Decode(ctx, cred)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Payload) != "bound-payload" || c.Addr == nil || c.TTL != 300*time.Second || time.Since(c.EncodeTime) > time.Minute {
		t.Fatalf("decoded %+v", c)
	}
	_, err = d.Decode(ctx, cred)
	var me *munge.Error
	if !errors.As(err, &me) || me.Status != munge.StatusReplayed || me.Msg != "Replayed credential" {
		t.Fatalf("second decoding: %v", err)
	}
	other, err := (&munge.Client{Socket: mungetest.Start(t)}).Encode(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode(ctx, other); !errors.As(err, &me) || me.Msg != "Invalid credential" {
		t.Fatalf("credential of another key: %v", err)
	}
}

// Oversized and prefix-less input is refused without running unmunge (the
// decoder's program is one that would fail the test if it ran).
func TestDecodeRefusesWithoutRunning(t *testing.T) {
	d, err := munge.NewDecoder("false", "", 1)
	if err != nil {
		t.Skip("no false(1)")
	}
	for _, cred := range []string{"MUNGE:" + strings.Repeat("x", munge.MaxCredential), "garbage", ""} {
		_, err := d.Decode(context.Background(), cred)
		var me *munge.Error
		if !errors.As(err, &me) || me.Status == 1 {
			t.Fatalf("%d bytes: %v (unmunge ran?)", len(cred), err)
		}
	}
}

// The decoder's slots bound concurrent unmunge runs: with its one slot
// held, a caller waits and gives up with its context.
func TestDecoderSlotsBoundConcurrency(t *testing.T) {
	// The program stands in for an unmunge that hangs (munged slow or
	// stuck): it holds the slot until its caller gives up.
	blocking, err := munge.NewDecoder(writeScript(t, "#!/bin/sh\nsleep 30\n"), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	first, cancelFirst := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { close(started); blocking.Decode(first, "MUNGE:x:") }()
	<-started
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := blocking.Decode(ctx, "MUNGE:y:")
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			break // waited for the slot until its context ended
		}
		if time.Now().After(deadline) {
			t.Fatalf("second decoding did not wait for the slot: %v", err)
		}
	}
	cancelFirst()
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "unmunge")
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
