// Package scheduler decides, once per cycle, which queued jobs start where.
//
// Schedule(*Snapshot) *Plan is a pure function: it reads no clock, does no
// I/O, keeps no state between calls and never writes the snapshot's jobs or
// vnodes, which are shared with the server's state store. The server
// commits the returned Plan as one Raft entry.
//
// # One cycle
//
//  1. Vnodes are ordered by node_sort_key (default "sort_priority HIGH"),
//     ties in server order. Static keys are sorted once; with assigned or
//     unused keys only the vnodes a placement touched are moved.
//  2. Queued jobs are ordered by policy.JobOrder: queue priority when
//     by_queue is on, then job Priority, then submission order.
//  3. Jobs whose NeverRunEpoch equals Snapshot.Epoch are skipped without a
//     word: they were judged impossible and no vnode changed since.
//  4. Each remaining job is placed on a per-cycle overlay of the vnodes
//     (resources placed, vnodes used or held exclusively). Jobs with the
//     same select, place and queue form an equivalence class: they share
//     one compiled request and, after the first failure, its verdict.
//  5. A job that cannot run gets a PBS comment ("Not Running: ..." or
//     "Can Never Run: ..."), emitted only when it differs from the job's
//     current comment; "Can Never Run" comments set NeverRun so the server
//     records the epoch.
//
// # Placement
//
// Chunks go to vnodes that are eligible (no state in model.Unavailable;
// job-busy vnodes are judged by their free resources), match the chunk's
// non-consumables (host, vnode, booleans with missing meaning False,
// strings, string arrays such as aoe) and have the consumables free.
// place=free puts each copy on the first vnode that fits, several per vnode
// allowed; pack puts every chunk on one host; scatter one chunk per host;
// vscatter one per vnode. Under pack and scatter a chunk is split across
// the vnodes of one host only when no single vnode of it fits. excl takes
// vnodes no other job uses and holds them; exclhost takes whole hosts, and
// the host's other vnodes appear in the exec list with no amounts.
//
// Placement is first fit in node order, as in OpenPBS, with one cheap
// improvement: if a multi-chunk job fails in select order it is tried again
// with larger chunks first. Results are deterministic and listed in select
// order either way.
//
// # Diagnostics
//
// "Can Never Run" is judged per chunk against the vnodes that exist, in
// any state: a chunk larger than every vnode (every host, when it may be
// split or for pack) can never run even if the cluster total would hold it,
// as can scatter/vscatter jobs with more chunks than hosts/vnodes and
// chunks asking for a host, vnode or value no vnode has. In
// "Insufficient amount of resource: X (R: r A: a T: t)" R is the request,
// A what is free now and T the total: for a job that cannot run now, A is
// counted over every vnode as OpenPBS's server-level check counts it
// (offline and exclusively held vnodes included); when that is enough but
// no set of vnodes takes the job now, the comment is "Not enough free
// nodes available". For Can Never Run, per chunk over the best single
// vnode or host.
//
// # Cost
//
// Per cycle the scheduler allocates a few flat slices sized by vnodes and
// consumable resources; the snapshot is never copied. For each chunk shape
// a cursor remembers the first vnode (and host) that might still hold a
// copy; since resources only shrink during a cycle, later jobs of that
// shape start there, so filling the cluster with similar jobs is close to
// linear. Jobs needing more than the free total of any resource are
// rejected before any vnode is looked at.
package scheduler
