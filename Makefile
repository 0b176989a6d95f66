# run-mcp build, test and benchmark entry points.
#
#   make            build bin/run-mcp (default goal)
#   make deps       install the real MCP servers the tests spawn (npm ci), only when needed
#   make test       go vet + go test -race (installs deps first); CI runs exactly this
#   make bench      every performance measure beside its floor; writes docs/BENCHMARKS.md
#                   (knobs: make bench BENCHFLAGS='-rounds 15 -peer-rounds 5'; -quick for a smoke run)
#   make bench-go   the go test benchmarks in ./test/bench/... (saved under test/bench/out/)
#   make demo       build, then run `bash scripts/demo-tour.sh`
#   make lint       gofmt must list nothing, plus go vet

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GO  ?= go
NPM ?= npm

BIN := bin/run-mcp

# Each benchmark iteration spawns real servers (~0.4 s for a Node server), so a fixed
# iteration count keeps `make bench` to a few minutes on 2 cores. Override e.g.
#   make bench BENCHTIME=1s BENCHCOUNT=6 BENCH=Initialize
BENCH      ?= .
BENCHTIME  ?= 20x
BENCHCOUNT ?= 1
BENCH_OUT  := test/bench/out
BENCHFLAGS ?=

.DEFAULT_GOAL := build
.PHONY: build deps test bench bench-go demo lint

# A static binary (no cgo) starts in about 1 ms less, and run-mcp starts one
# more copy of itself per target (its supervisor), so it pays twice. The
# release builds (.goreleaser, npm) use CGO_ENABLED=0 as well.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/run-mcp

# npm writes node_modules/.package-lock.json on every install; reinstall when it is
# missing or older than the lock (or package.json). npm ci wipes node_modules first.
deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package-lock.json package.json
	$(NPM) ci --no-audit --no-fund
	@touch $@

test: deps
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench: deps build
	$(GO) run ./test/bench/report -runmcp $(BIN) $(BENCHFLAGS)

bench-go: deps
	@mkdir -p $(BENCH_OUT)
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -benchmem ./test/bench/... \
		| tee $(BENCH_OUT)/bench.txt
	@echo "benchmark results saved to $(BENCH_OUT)/bench.txt"

demo: build
	bash scripts/demo-tour.sh

lint:
	@out="$$(find . -path ./node_modules -prune -o -path ./.git -prune -o -name '*.go' -print | xargs -r gofmt -l)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
