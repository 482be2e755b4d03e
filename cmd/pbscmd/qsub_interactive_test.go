package pbscmd

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// TestInteractiveWaitAcceptsOnlyTheCookie: qsub -I's port is open to
// anyone; a connection that does not present the job's cookie (wrong
// cookie, another frame first, an oversized frame) is dropped,
// and the agent that presents it still gets through.
func TestInteractiveWaitAcceptsOnlyTheCookie(t *testing.T) {
	env := &Env{Hostname: func() (string, error) { return "127.0.0.1", nil }}
	var req api.SubmitRequest
	it, err := listenInteractive(env, &req)
	if err != nil {
		t.Fatal(err)
	}
	defer it.close()
	if len(req.InteractiveCookie) != api.InteractiveCookieLen {
		t.Fatalf("cookie %q", req.InteractiveCookie)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conns := make(chan agentConn, 1)
	go it.accept(ctx, conns)

	dial := func() net.Conn {
		c, err := net.Dial("tcp", req.Interactive)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	dropped := func(c net.Conn, what string) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(15 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("%s: connection kept open", what)
		}
		c.Close()
	}
	bad := dial()
	api.NewFrameWriter(bad).Write(api.FrameHello, api.HelloPayload("1.svr", "0000"))
	dropped(bad, "wrong cookie")
	data := dial()
	api.NewFrameWriter(data).Data([]byte("ls\n"))
	dropped(data, "data before the greeting")
	big := dial()
	big.Write([]byte{api.FrameHello, 0x7f, 0xff, 0xff, 0xff})
	dropped(big, "oversized greeting")

	good := dial()
	defer good.Close()
	w := api.NewFrameWriter(good)
	w.Write(api.FrameHello, api.HelloPayload("1.svr", req.InteractiveCookie))
	w.Data([]byte("prompt$ "))
	select {
	case c := <-conns:
		typ, p, err := c.in.Next()
		if err != nil || typ != api.FrameData || string(p) != "prompt$ " {
			t.Errorf("first frame after the greeting: %c %q %v", typ, p, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent with the cookie was not accepted")
	}
	select {
	case <-conns:
		t.Error("a connection without the cookie was accepted")
	default:
	}
}
