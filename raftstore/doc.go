// Package raftstore is Strata's replicated state: the typed commands that
// change it, the Raft FSM that applies them to an in-memory indexed store
// (hashicorp/go-memdb, MVCC, so readers get cheap consistent snapshots), the
// snapshot format, and the wiring of hashicorp/raft with raft-boltdb.
//
// The FSM is deterministic: it reads no clock and draws no random numbers.
// Every time it records comes from the command, stamped by the leader.
package raftstore
