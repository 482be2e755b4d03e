package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server/api"
)

// Forwarding: commands may talk to any server. A follower authenticates the
// caller itself (SO_PEERCRED on its Unix socket) and sends the request on to
// the leader's TCP API over mutual TLS, presenting its server certificate
// and naming the caller in OnBehalfHeader. The leader believes that header
// only from a peer whose verified certificate has the server role
// (identify, identity.go): an agent, or a client without a certificate,
// that sends it is refused. The leader's answer carries IndexHeader, the
// index its FSM had applied when it answered; the follower waits until its
// own FSM has applied as much before passing the answer back, so the same
// client's next read on this follower sees its write.

const (
	// OnBehalfHeader carries the JSON Identity of the caller a follower
	// authenticated.
	OnBehalfHeader = "X-Strata-On-Behalf-Of"
	// IndexHeader is the applied Raft index at the leader's answer.
	IndexHeader = "X-Strata-Index"
	// forwardTimeout bounds one forwarded request (a submission runs the
	// queuejob hooks on the leader).
	forwardTimeout = 60 * time.Second
)

// forwardedIdentity decodes the header a server peer sent. The identity is
// that of a local user of the follower: never an agent.
func forwardedIdentity(h string) (*Identity, error) {
	var id Identity
	if err := json.Unmarshal([]byte(h), &id); err != nil {
		return nil, model.Errorf(model.PBSEPerm, "(malformed %s header)", OnBehalfHeader)
	}
	if id.Agent || id.User == "" {
		return nil, model.Errorf(model.PBSEPerm, "(forwarded identity is not a user)")
	}
	return &id, nil
}

// newForwarder returns the HTTP client followers forward with: it presents
// this server's certificate and accepts only a peer with the server role.
func newForwarder(certs *pki.Source) *http.Client {
	dialer := &net.Dialer{Timeout: 3 * time.Second}
	tr := &http.Transport{
		MaxIdleConnsPerHost: 16,
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return certs.DialPeer(ctx, dialer, network, addr, pki.RoleServer, 5*time.Second)
		},
	}
	return &http.Client{Transport: tr, Timeout: forwardTimeout}
}

// leaderAPI returns the TCP API address of the current leader, or "".
func (s *Server) leaderAPI() string {
	id, _ := s.node.Leader()
	if id == "" || id == s.node.ID {
		return ""
	}
	return s.peerAPI(id) // levels.go: [[peer]] tables, then replicated records
}

// forward sends a write a follower received on to the leader and relays
// the answer once this follower's FSM has caught up with it.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, id *Identity) error {
	addr := s.leaderAPI()
	if addr == "" {
		if id, _ := s.node.Leader(); id != "" && id != s.node.ID {
			return &model.PBSError{Code: model.PBSENotLeader, Msg: "The leader's API address is not known yet; retry"}
		}
		return &model.PBSError{Code: model.PBSENotLeader, Msg: "No leader is known yet; retry"}
	}
	// The body is already in memory and bounded (limits.go), except a
	// snapshot restore's, which is streamed on to the leader; the leader
	// bounds it, after checking the caller is a manager (operator.go).
	var body io.Reader = r.Body
	contentType := "application/json"
	client := s.forwarder
	if streamedBody(r) {
		// Refused here already, before a byte is read, for non-managers.
		if err := s.mustManage(id); err != nil {
			return err
		}
		lim := s.cfg.Limits.withDefaults()
		bb := &boundedBody{r: r.Body, left: lim.MaxSnapshotBytes, idle: lim.ReadTimeout.Duration, rc: http.NewResponseController(w)}
		defer bb.rc.SetReadDeadline(time.Time{})
		body, contentType = bb, r.Header.Get("Content-Type")
		// No overall timeout: an upload of gigabytes takes its time; the
		// idle bound above and the leader's own end stalls.
		client = &http.Client{Transport: s.forwarder.Transport}
	} else {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	who, err := json.Marshal(id)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, "https://"+addr+r.URL.RequestURI(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set(OnBehalfHeader, string(who))
	resp, err := client.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			// Never reached the leader: nothing happened; the client
			// may retry (qsub does, with its token).
			return &model.PBSError{Code: model.PBSENotLeader, Msg: "Leader unreachable; retry"}
		}
		return lostLeader(addr, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return lostLeader(addr, err)
	}
	// Membership changes are not waited for: reads do not see them in
	// the state, and a server just removed never receives its removal.
	skipWait := strings.HasPrefix(r.URL.Path, api.Version+"/operator/raft/")
	if idx, _ := strconv.ParseUint(resp.Header.Get(IndexHeader), 10, 64); idx > 0 && !skipWait {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		err := s.node.WaitApplied(ctx, idx)
		cancel()
		if err != nil {
			s.logger.Printf("forwarded write: %v", err)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(IndexHeader, resp.Header.Get(IndexHeader))
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
	return nil
}

// lostLeader is the answer when the leader took the request but its reply
// never came (it died or lost leadership meanwhile): the request may or
// may not have been committed. "Not leader" makes qsub retry with the same
// submission token, which the FSM answers with the job's id if the first
// attempt did commit, so no job is lost or created twice.
func lostLeader(addr string, err error) error {
	return &model.PBSError{Code: model.PBSENotLeader, Msg: fmt.Sprintf("Reply from the leader %s lost (%v); retry", addr, err)}
}
