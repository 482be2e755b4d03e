package metrics

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Raft's files on disk (raftstore: raft.db holds the log and stable store,
// snapshots/<term>-<index>-<ms>/state.bin the snapshots): read at scrape
// time by name and size only.
var (
	descRaftDB   = prometheus.NewDesc("strata_raft_log_bytes", "Size of this server's Raft log and stable store file (raft.db; BoltDB does not shrink it after compaction).", nil, nil)
	descRaftSnap = prometheus.NewDesc("strata_raft_snapshot_bytes", "Size of this server's latest Raft snapshot (state.bin), absent before the first.", nil, nil)
)

// diskCollector exports the sizes under a server's raft directory.
type diskCollector struct{ dir string }

func (d *diskCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descRaftDB
	ch <- descRaftSnap
}

func (d *diskCollector) Collect(ch chan<- prometheus.Metric) {
	if fi, err := os.Stat(filepath.Join(d.dir, "raft.db")); err == nil {
		ch <- prometheus.MustNewConstMetric(descRaftDB, prometheus.GaugeValue, float64(fi.Size()))
	}
	if size, ok := latestSnapshotSize(filepath.Join(d.dir, "snapshots")); ok {
		ch <- prometheus.MustNewConstMetric(descRaftSnap, prometheus.GaugeValue, float64(size))
	}
}

// latestSnapshotSize is the size of the snapshot with the highest index
// (directory names are term-index-milliseconds; a snapshot being written
// has a .tmp suffix and no complete state yet).
func latestSnapshotSize(dir string) (int64, bool) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	best, bestIdx := "", uint64(0)
	for _, e := range ents {
		parts := strings.Split(e.Name(), "-")
		if !e.IsDir() || len(parts) != 3 || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		idx, err := strconv.ParseUint(parts[1], 10, 64)
		if err == nil && (best == "" || idx > bestIdx) {
			best, bestIdx = e.Name(), idx
		}
	}
	if best == "" {
		return 0, false
	}
	fi, err := os.Stat(filepath.Join(dir, best, "state.bin"))
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}
