# Strata build. `make` builds bin/strata and the PBS command links;
# `make test` runs every test, end-to-end included (what CI runs);
# `make unit` is the quick run without the end-to-end tests; `make demo` runs a sample workload on a local
# cluster; `make bench` measures and writes docs/performance.md; `make fuzz`
# runs every fuzz target for FUZZTIME each (`make test` runs their seeds).
GO      ?= go
BIN     := bin
LINKS   := qsub qstat qdel qhold qrls qalter qsig qselect qmove qrerun qrun qorder tracejob pbsnodes qmgr pbs_rsub pbs_rstat pbs_rdel
DEMODIR ?= /tmp/strata-demo

.PHONY: all build test unit demo demo-ha bench bench-short vet fuzz clean

all: build

# urfave_cli_no_docs leaves out the CLI's man/markdown generator (and its
# markdown parser), whose package initialisation every process of the
# multi-call binary paid: each qsub and each job's shepherd.
TAGS    ?= urfave_cli_no_docs

build:
	$(GO) build -tags '$(TAGS)' -o $(BIN)/strata ./cmd/strata
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
	# End to end (a1 a8 b c and jobs/s against slots), with the Slurm peer
	# in the same run when ../shared/peers/slurm is present (docs/performance.md).
	$(BIN)/strata bench --gobench /tmp/strata-gobench.txt --out docs/performance.md --plot-data /tmp/strata-bench-slots.json
	$(GO) run ./cmd/benchplot -in /tmp/strata-bench-slots.json -out docs/perf-jobs-per-slot.png
	# High availability: failover times and submission throughput, 3 servers against 1 (docs/ha.md).
	STRATA_HA_BENCH=1 $(GO) test -tags e2e -count=1 -run '^TestHABench$$' -v ./cmd/strata/ | grep -E 'HA figures|^(ok|FAIL)'

# A bench CI can afford (a few minutes): small sizes, one run, no Slurm;
# the report goes to /tmp so that docs/performance.md keeps the full run.
bench-short: build
	$(BIN)/strata bench --short --out /tmp/strata-performance-short.md --plot-data /tmp/strata-bench-slots-short.json
	$(GO) run ./cmd/benchplot -in /tmp/strata-bench-slots-short.json -out /tmp/strata-perf-jobs-per-slot-short.png

clean:
	rm -rf $(BIN)
