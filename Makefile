# Strata build. `make` builds bin/strata and the PBS command links;
# `make test` runs every test; `make demo` runs a sample workload on a local
# cluster; `make bench` measures and writes docs/performance.md.
GO      ?= go
BIN     := bin
LINKS   := qsub qstat qdel qhold qrls qalter qsig qselect qmove qrerun qrun qorder tracejob pbsnodes qmgr pbs_rsub pbs_rstat pbs_rdel
DEMODIR ?= /tmp/strata-demo

.PHONY: all build test demo bench vet clean

all: build

build:
	$(GO) build -o $(BIN)/strata ./cmd/strata
	@for l in $(LINKS); do ln -sf strata $(BIN)/$$l; done

vet:
	$(GO) vet ./...

test: build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

demo: build
	@sh docs/demo.sh $(DEMODIR)

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 5x ./scheduler/ | tee /tmp/strata-gobench.txt
	$(GO) test -run '^$$' -bench 'FSM|Raft' -benchtime 2000x ./raftstore/ | tee -a /tmp/strata-gobench.txt
	# Provisioning: dispatcher throughput with 2000 queued operations.
	$(GO) test -run '^$$' -bench 'Provision' -benchtime 3x ./raftstore/ | tee -a /tmp/strata-gobench.txt
	$(GO) test -run '^$$' -bench . -benchtime 5000x ./server/ | tee -a /tmp/strata-gobench.txt
	$(GO) test -run '^$$' -bench . -benchtime 1x ./scheduler/sim/ | tee -a /tmp/strata-gobench.txt
	$(BIN)/strata bench --gobench /tmp/strata-gobench.txt --out docs/performance.md

clean:
	rm -rf $(BIN)
