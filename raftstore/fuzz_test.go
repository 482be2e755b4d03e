package raftstore

import (
	"bytes"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
)

// FuzzDecodeCommand checks the decoding of Raft log entries: any bytes give
// a command or an error (never a panic, never unbounded work), and a
// decoded command encodes to bytes that decode to the same command.
func FuzzDecodeCommand(f *testing.F) {
	seeds := []Command{
		&SubmitJob{Job: testJob("tok"), Now: 5},
		&DeleteJob{JobID: "1[2-9:3].svr", Requestor: "alice@h", Now: 7},
		&SetServerConfig{Config: model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), DefaultQueue: "workq",
			Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}}}, Now: 1},
		&HoldJob{}, &ReleaseJob{}, &SignalJob{}, &MoveJob{}, &OrderJobs{}, &JobEvents{}, &RegisterHost{}, &ApplyPlan{},
		&Fairshare{Op: FairshareSet, Entity: "alice", Usage: 1e6, Now: 9},
	}
	for _, c := range seeds {
		data, err := Encode(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, '{', '}'})
	f.Add([]byte{byte(DeleteJobType), 'n', 'u', 'l', 'l'})
	f.Add([]byte{byte(SubmitJobType), '{', '"', 'j', 'o', 'b', '"', ':', '{', '"', 'a', 'r', 'r', 'a', 'y', '"', ':', '{', '"', 'e', 'n', 'd', '"', ':', '9', 'e', '1', '8', '}', '}', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Command
		var err error
		fuzzcheck.Bounded(t, len(data), func() { c, err = decode(data) })
		if err != nil {
			return
		}
		if c.Type() != MessageType(data[0]) {
			t.Fatalf("entry of type %d decodes as a %s", data[0], c.Type())
		}
		once, err := Encode(c)
		if err != nil {
			t.Fatalf("%q decodes as %+v, which does not encode: %v", data, c, err)
		}
		c2, err := decode(once)
		if err != nil {
			t.Fatalf("%q re-encoded as %q does not decode: %v", data, once, err)
		}
		twice, _ := Encode(c2)
		if !bytes.Equal(once, twice) {
			t.Fatalf("%q decodes and encodes as %q, then %q", data, once, twice)
		}
	})
}
