# Strata build. `make` builds bin/strata and the PBS command links;
# `make test` runs every test, end-to-end included (what CI runs);
# `make unit` is the quick run without the end-to-end tests; `make demo` runs a sample workload on a local
# cluster; `make bench` measures and writes docs/performance.md; `make fuzz`
# runs every fuzz target for FUZZTIME each (`make test` runs their seeds).
# `make install [PREFIX=/usr/local] [DESTDIR=...]` installs the binary, the
# command links, man pages, bash completion, example configurations and
# the systemd units (docs/deploy.md); `make uninstall` removes them.
GO      ?= go
BIN     := bin
LINKS   := qsub qstat qdel qhold qrls qalter qsig qselect qmove qrerun qrun qorder tracejob pbsnodes qmgr pbs_rsub pbs_rstat pbs_rdel pbs_ralter pbsfs
DEMODIR ?= /tmp/strata-demo
# make bench: the largest cycle size (1: 100k queued jobs, 2: also 1M) and
# how many samples of each.
BENCH_SCALE ?= 2
CYCLE_COUNT ?= 3

.PHONY: all build test unit demo demo-ha bench bench-short bench-sim-full vet fuzz clean install uninstall

all: build

# urfave_cli_no_docs leaves out the CLI's man/markdown generator (and its
# markdown parser), whose package initialisation every process of the
# multi-call binary paid: each qsub and each job's shepherd.
TAGS    ?= urfave_cli_no_docs

build:
	$(GO) build -tags '$(TAGS)' -o $(BIN)/strata ./cmd/strata
	CGO_ENABLED=0 $(GO) build -o $(BIN)/strata-shepherd ./cmd/strata-shepherd
	@for l in $(LINKS); do ln -sf strata $(BIN)/$$l; done

vet:
	$(GO) vet ./...

# The end-to-end tests (cmd/strata/*_e2e_test.go and their harness) start
# real clusters; they carry the build tag e2e, so plain `go test ./...` is
# the quick unit run and `make test` adds them.
test: build
	$(GO) vet -tags e2e ./...
	$(GO) test -tags e2e -count=1 -timeout 20m ./...

unit:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Fuzzing: every `func FuzzXxx` in a _test.go file, one at a time, for
# FUZZTIME each; FUZZ=regexp picks targets by name. All targets run even
# when one fails; a failing input is written to the package's
# testdata/fuzz/FuzzXxx/ (commit it together with the fix).
FUZZTIME ?= 30s
FUZZ     ?= .
fuzz:
	@failed=""; \
	for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for t in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | grep -E '$(FUZZ)'); do \
	    echo "== $$dir $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$dir/ || failed="$$failed $$dir:$$t"; \
	  done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failing targets:$$failed"; exit 1; fi; \
	echo "fuzz: every target ran $(FUZZTIME) without a failure"

demo: build
	@sh docs/demo.sh $(DEMODIR)

# A failover on a local cluster of three servers (docs/ha.md).
demo-ha: build
	@sh docs/demo-ha.sh $(DEMODIR)-ha

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 5x ./scheduler/ | tee /tmp/strata-gobench.txt
	$(GO) test -run '^$$' -bench 'FSM|Raft' -benchtime 2000x ./raftstore/ | tee -a /tmp/strata-gobench.txt
	# Provisioning: dispatcher throughput with 2000 queued operations.
	$(GO) test -run '^$$' -bench 'Provision' -benchtime 3x ./raftstore/ | tee -a /tmp/strata-gobench.txt
	$(GO) test -run '^$$' -bench . -benchtime 5000x ./server/ | tee -a /tmp/strata-gobench.txt
	$(GO) test -run '^$$' -bench . -benchtime 1x ./scheduler/sim/ | tee -a /tmp/strata-gobench.txt
	# One whole scheduling cycle at cluster size (snapshot, Input, Schedule):
	# 10k, 100k and 1M queued jobs, CYCLE_COUNT samples each, medians in a
	# table and docs/cycle-time.png (STRATA_BENCH_SCALE=1 stops at 100k).
	STRATA_BENCH_SCALE=$(BENCH_SCALE) $(GO) test -run '^$$' -bench '^Benchmark(Cycle|Place50kJobs50kVnodes)$$' -benchtime 2x -count $(CYCLE_COUNT) -timeout 3h ./server/schedglue/ | tee /tmp/strata-cycle.txt
	$(GO) run ./cmd/benchplot -cycle /tmp/strata-cycle.txt -png docs/cycle-time.png > /tmp/strata-cycle.md
	# End to end (a1 a8 b c and jobs/s against slots), with the Slurm peer
	# in the same run when ../shared/peers/slurm is present (docs/performance.md).
	$(BIN)/strata bench --gobench /tmp/strata-gobench.txt --cycle /tmp/strata-cycle.md --out docs/performance.md --plot-data /tmp/strata-bench-slots.json
	$(GO) run ./cmd/benchplot -in /tmp/strata-bench-slots.json -out docs/perf-jobs-per-slot.png
	# Simulated hosts (docs/simulate.md): 200 hosts, a 2,000-subjob array, 3 runs.
	$(BIN)/strata bench-sim --out docs/performance.md
	# High availability: failover times and submission throughput, 3 servers against 1 (docs/ha.md).
	STRATA_HA_BENCH=1 STRATA_HA_BENCH_OUT=$(CURDIR)/docs/performance.md $(GO) test -tags e2e -count=1 -run '^TestHABench$$' -v ./cmd/strata/ | grep -E 'HA figures|^(ok|FAIL)'

# A bench CI can afford (a few minutes): small sizes, one run, no Slurm;
# the report goes to /tmp so that docs/performance.md keeps the full run.
bench-short: build
	$(BIN)/strata bench --short --out /tmp/strata-performance-short.md --plot-data /tmp/strata-bench-slots-short.json
	$(GO) run ./cmd/benchplot -in /tmp/strata-bench-slots-short.json -out /tmp/strata-perf-jobs-per-slot-short.png

# Installation. The man pages and the completion script are generated by
# the binary from its own command definitions, so they match it; the
# example configurations never replace a site's server.toml or mom.toml.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR  ?= /etc
UNITDIR     ?= /etc/systemd/system
SUBST       := sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'
UNITS       := strata-server.service strata-mom.service

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(UNITDIR)
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/strata
	install -m 0755 $(BIN)/strata $(DESTDIR)$(BINDIR)/strata
	install -m 0755 $(BIN)/strata-shepherd $(DESTDIR)$(BINDIR)/strata-shepherd
	@for l in $(LINKS); do ln -sf strata $(DESTDIR)$(BINDIR)/$$l; done
	$(BIN)/strata gen-man $(DESTDIR)$(MANDIR) >/dev/null
	$(BIN)/strata gen-completion > $(DESTDIR)$(BASHCOMPDIR)/strata
	@for l in $(LINKS); do ln -sf strata $(DESTDIR)$(BASHCOMPDIR)/$$l; done
	$(SUBST) dist/server.toml > $(DESTDIR)$(SYSCONFDIR)/strata/server.toml.example
	$(SUBST) dist/mom.toml > $(DESTDIR)$(SYSCONFDIR)/strata/mom.toml.example
	@for u in $(UNITS); do $(SUBST) dist/systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u; done
	@echo "installed under $(DESTDIR)$(PREFIX); configure $(SYSCONFDIR)/strata (docs/deploy.md), then systemctl daemon-reload"

# Removes what install wrote; configurations, certificates and state stay.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/strata $(DESTDIR)$(BINDIR)/strata-shepherd $(DESTDIR)$(BASHCOMPDIR)/strata
	@for l in $(LINKS); do rm -f $(DESTDIR)$(BINDIR)/$$l $(DESTDIR)$(BASHCOMPDIR)/$$l $(DESTDIR)$(MANDIR)/man1/$$l.1 $(DESTDIR)$(MANDIR)/man8/$$l.8; done
	rm -f $(DESTDIR)$(MANDIR)/man8/strata.8
	rm -f $(DESTDIR)$(SYSCONFDIR)/strata/server.toml.example $(DESTDIR)$(SYSCONFDIR)/strata/mom.toml.example
	@for u in $(UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$$u; done

# By hand (about 10 minutes): 10,000 simulated hosts and a 100,000-subjob array.
bench-sim-full: build
	$(BIN)/strata bench-sim --hosts 10000 --subjobs 100000 --runs 1 --out docs/performance.md

clean:
	rm -rf $(BIN)
