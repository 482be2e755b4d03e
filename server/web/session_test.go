package web

import (
	"sync"
	"testing"
	"time"
)

// clock is a movable time for the lifetimes.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLoginCodeIsOneTimeAndExpires(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	s := NewSessions(clk.now)
	alice := Viewer{User: "alice", Host: "login1"}
	code, _, err := s.Mint(alice)
	if err != nil {
		t.Fatal(err)
	}
	sid, v, ok := s.Redeem(code, "10.0.0.1")
	if !ok || v.User != "alice" {
		t.Fatalf("first redeem: ok=%v viewer=%+v", ok, v)
	}
	// Attack: replay the link (from a browser history, a proxy log).
	if _, _, ok := s.Redeem(code, "10.0.0.1"); ok {
		t.Error("a login code was accepted twice")
	}
	// Attack: a code made up by the attacker, or the session id used as
	// a code.
	for _, forged := range []string{"", "AAAA", sid} {
		if _, _, ok := s.Redeem(forged, "10.0.0.1"); ok {
			t.Errorf("forged code %q accepted", forged)
		}
	}
	// Attack: a code used after its lifetime.
	late, _, _ := s.Mint(alice)
	clk.add(CodeTTL)
	if _, _, ok := s.Redeem(late, "10.0.0.1"); ok {
		t.Error("an expired login code was accepted")
	}
}

func TestSessionBoundToClientAndLifetime(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	s := NewSessions(clk.now)
	code, _, _ := s.Mint(Viewer{User: "alice"})
	sid, _, _ := s.Redeem(code, "10.0.0.1")
	if v, _, ok := s.Lookup(sid, "10.0.0.1"); !ok || v.User != "alice" {
		t.Fatalf("lookup: %v %+v", ok, v)
	}
	// Attack: a cookie sniffed on the plain-HTTP wire, sent from
	// another address.
	if _, _, ok := s.Lookup(sid, "10.0.0.66"); ok {
		t.Error("a session was accepted from another client address")
	}
	// Attack: a forged session id, and the code used as a session.
	for _, forged := range []string{"", "x", code} {
		if _, _, ok := s.Lookup(forged, "10.0.0.1"); ok {
			t.Errorf("forged session %q accepted", forged)
		}
	}
	// Attack: the cookie kept past its lifetime (the browser's Max-Age
	// is the client's promise, not the server's rule).
	clk.add(SessionTTL)
	if _, _, ok := s.Lookup(sid, "10.0.0.1"); ok {
		t.Error("an expired session was accepted")
	}
	// Logout ends a live session at once.
	code, _, _ = s.Mint(Viewer{User: "alice"})
	sid, _, _ = s.Redeem(code, "10.0.0.1")
	s.End(sid)
	if _, _, ok := s.Lookup(sid, "10.0.0.1"); ok {
		t.Error("a session outlived its logout")
	}
}

// A local user minting links in a loop holds at most maxPerUser of them;
// another user's links are not evicted by it.
func TestMintBounded(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	s := NewSessions(clk.now)
	bob, _, _ := s.Mint(Viewer{User: "bob"})
	var first string
	for i := 0; i < 10*maxPerUser; i++ {
		c, _, _ := s.Mint(Viewer{User: "mallory"})
		if i == 0 {
			first = c
		}
		clk.add(time.Millisecond)
	}
	if n := len(s.codes); n != maxPerUser+1 {
		t.Errorf("%d codes held, want %d", n, maxPerUser+1)
	}
	if _, _, ok := s.Redeem(first, "x"); ok {
		t.Error("the oldest of the flood was not evicted")
	}
	if _, v, ok := s.Redeem(bob, "x"); !ok || v.User != "bob" {
		t.Error("another user's link was evicted by the flood")
	}
}
