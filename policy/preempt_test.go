package policy

import "testing"

func TestPreemptPrioLevels(t *testing.T) {
	p, err := ParsePreemptPrio("express_queue, normal_jobs, server_softlimits+queue_softlimits, queue_softlimits")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		set  PreemptClass
		want int
	}{
		{"express", BitExpress, 4000},
		{"normal", 0, 3000},
		{"both soft limits", BitQueueSoft | BitServerSoft, 2000},
		{"queue soft", BitQueueSoft, 1000},
		{"server soft only matches no entry: normal", BitServerSoft, 3000},
		{"express over soft limit: first subset entry", BitExpress | BitQueueSoft, 4000},
		{"starving, not listed: normal", BitStarving, 3000},
	}
	for _, tt := range tests {
		if got := p.Level(tt.set); got != tt.want {
			t.Errorf("%s: level %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestParsePreemptPrioErrors(t *testing.T) {
	for _, s := range []string{"", "express_queue,,normal_jobs", "bogus", "normal_jobs, normal_jobs", "express_queue+nope"} {
		if _, err := ParsePreemptPrio(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestPreemptOrder(t *testing.T) {
	steps, err := ParsePreemptOrder("SCR 80 SC 50 S")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		remain float64
		want   string
	}{{100, "SCR"}, {81, "SCR"}, {80, "SC"}, {50.5, "SC"}, {50, "S"}, {0, "S"}} {
		if got := PreemptMethods(steps, tt.remain); got != tt.want {
			t.Errorf("%v%% left: %q, want %q", tt.remain, got, tt.want)
		}
	}
	for _, bad := range []string{"", "SX", "SS", "S 80", "S 120 R", "S 50 R 60 C", "S x R"} {
		if _, err := ParsePreemptOrder(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := ValidPreemptSort("min_time_since_start"); err != nil {
		t.Error(err)
	}
	if ValidPreemptSort("max_time") == nil {
		t.Error("max_time accepted")
	}
}
