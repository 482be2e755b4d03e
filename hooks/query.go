package hooks

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
)

// Lookup answers a Python hook's query for an object its event does not
// carry (pbs.server().job(id)). cred is who the hook runs as (nil: the
// daemon's user): a lookup must answer only what that identity may see.
// ok false is "no such object" (None in the hook).
type Lookup func(kind, name string, cred *Credential) (v any, ok bool)

// Query bounds: a hook's queries are answered one line each, a request
// line longer than maxQueryLine ends the channel, and after maxQueries
// every answer is None.
const (
	maxQueries   = 100000
	maxQueryLine = 4096
)

// queryEnv names the descriptors of the query channel in the hook's
// environment: "<request fd>,<answer fd>".
const queryEnv = "STRATA_HOOK_QUERY_FDS=3,4"

// query is one request line of the channel.
type query struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// serveQueries answers the hook's query lines until it closes its end.
func serveQueries(req io.Reader, resp io.Writer, lookup Lookup, cred *Credential) {
	sc := bufio.NewScanner(req)
	sc.Buffer(make([]byte, 0, 512), maxQueryLine)
	for n := 1; sc.Scan(); n++ {
		var q query
		var result any
		if n <= maxQueries && json.Unmarshal(sc.Bytes(), &q) == nil {
			if v, ok := lookup(q.Kind, q.Name, cred); ok {
				result = v
			}
		}
		b, err := json.Marshal(map[string]any{"result": result})
		if err != nil {
			b = []byte(`{"result": null}`)
		}
		if _, err := resp.Write(append(b, '\n')); err != nil {
			return
		}
	}
}

// queryPipes are the two pipes of a hook's query channel: the hook writes
// requests on fd 3 and reads answers on fd 4.
type queryPipes struct {
	reqR, reqW, respR, respW *os.File
}

func newQueryPipes() (*queryPipes, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	return &queryPipes{reqR: reqR, reqW: reqW, respR: respR, respW: respW}, nil
}

// child is the hook's ends, as cmd.ExtraFiles (fds 3 and 4).
func (q *queryPipes) child() []*os.File { return []*os.File{q.reqW, q.respR} }

// serve closes the parent's copies of the hook's ends (so the request
// pipe ends when the hook's side closes) and answers in the background.
func (q *queryPipes) serve(lookup Lookup, cred *Credential) {
	q.reqW.Close()
	q.respR.Close()
	go serveQueries(q.reqR, q.respW, lookup, cred)
}

// close ends the channel; nil-safe and idempotent enough for both paths.
func (q *queryPipes) close() {
	if q == nil {
		return
	}
	for _, f := range []*os.File{q.reqR, q.reqW, q.respR, q.respW} {
		f.Close()
	}
}
