# run-mcp build, test and benchmark entry points.
#
#   make            build bin/run-mcp and bin/run-mcp-demo (default goal)
#   make deps       install the real MCP servers the tests spawn (npm ci), only when needed
#   make test       go vet + go test -race (installs deps first); CI runs exactly this
#   make bench      every performance measure beside its floor, and the speed devices' same-run
#                   A/B rows; writes docs/BENCHMARKS.md (knobs: make bench BENCHFLAGS='-rounds 15
#                   -peer-rounds 5'; -quick for a smoke run; -ab=false without the A/B rows)
#   make soak       the memory soak (SOAK=10m of mixed agent traffic); writes the Soak section of
#                   docs/BENCHMARKS.md, which make bench keeps (one kind of traffic alone, to
#                   find what grows: make soak SOAK=2m SOAKFLAGS='-soak-mix big -out /tmp/soak.md')
#   make bench-go   the go test benchmarks in ./test/bench/... (saved under test/bench/out/)
#   make demo       build, then run `bash scripts/demo-tour.sh`
#   make lint       gofmt must list nothing, plus go vet
#   make cross      compile and go vet for linux, darwin, windows × amd64, arm64 (CGO_ENABLED=0)
#   make npm        the npm launcher and one package per platform, as tarballs in dist/npm/
#   make docs       shell completions and man pages from the command tree, in dist/docs/
#   make goreleaser install GoReleaser (pinned) and run `goreleaser check` and a snapshot build
#
# The version comes from the VERSION file (override: make npm VERSION=0.4.0-rc.1);
# the commit, the build date and whether the tree had uncommitted changes are
# stamped in with -ldflags -X, as GoReleaser does for releases.
#   make conformance  the official MCP conformance suite's client scenarios (both pinned versions),
#                   run-mcp as the client headless and through the agent server; prints a table

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

GO  ?= go
NPM ?= npm

BIN := bin/run-mcp
# The demo server is a binary of its own (cmd/run-mcp-demo), shipped beside
# run-mcp everywhere: `run-mcp demo-server` runs the one next to it.
CMDS := ./cmd/run-mcp ./cmd/run-mcp-demo

VERSION ?= $(shell cat VERSION)
COMMIT  := $(shell git rev-parse HEAD 2>/dev/null)
DATE    := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
TREE    := $(shell if [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then echo dirty; else echo clean; fi)
STAMP   := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE) -X main.treeState=$(TREE)

# GOOS/GOARCH pairs every release builds (GoReleaser, make npm) and CI vets.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
NPM_DIST  := dist/npm

# Each benchmark iteration spawns real servers (~0.4 s for a Node server), so a fixed
# iteration count keeps `make bench` to a few minutes on 2 cores. Override e.g.
#   make bench BENCHTIME=1s BENCHCOUNT=6 BENCH=Initialize
BENCH      ?= .
BENCHTIME  ?= 20x
BENCHCOUNT ?= 1
BENCH_OUT  := test/bench/out
BENCHFLAGS ?=
SOAK       ?= 10m
SOAKFLAGS  ?=

.DEFAULT_GOAL := build
.PHONY: build deps test bench bench-go soak demo lint cross npm docs goreleaser conformance

# A static binary (no cgo) starts in about 1 ms less, and run-mcp starts one
# more copy of itself per target (its supervisor), so it pays twice. The
# release builds (.goreleaser, npm) use CGO_ENABLED=0 as well.
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(STAMP)' -o bin/ $(CMDS)

# npm writes node_modules/.package-lock.json on every install; reinstall when it is
# missing or older than the lock (or package.json). npm ci wipes node_modules first,
# through a symbolic link too: a node_modules that links to another checkout's (a git
# worktree sharing it) is left alone, since wiping it would empty the other's.
deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package-lock.json package.json
	@if [ -L node_modules ]; then \
		echo "deps: node_modules links to $$(readlink node_modules); not reinstalling it from here (run make deps there)"; \
	else \
		$(NPM) ci --no-audit --no-fund && touch $@; \
	fi

test: deps
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench: deps build
	$(GO) run ./test/bench/report -runmcp $(BIN) $(BENCHFLAGS)

# Not part of make bench: it runs for SOAK (ten minutes) by design.
soak: build
	$(GO) run ./test/bench/report -runmcp $(BIN) -soak $(SOAK) $(SOAKFLAGS)

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

# -trimpath, as make npm and GoReleaser build: the compiled packages are shared.
cross:
	@for p in $(PLATFORMS); do \
		echo "== $$p: go build and go vet (CGO_ENABLED=0)"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath ./... ; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./... ; \
	done

# Static binaries (CGO_ENABLED=0, -trimpath, stripped; run-mcp and run-mcp-demo
# for each platform), then npm/build.mjs
# assembles the packages and npm-packs them into $(NPM_DIST).
npm:
	rm -rf $(NPM_DIST)
	@for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		echo "== $$p"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '-s -w $(STAMP)' \
			-o $(NPM_DIST)/bin/$$os-$$arch/ $(CMDS); \
	done
	node npm/build.mjs --version $(VERSION) --bins $(NPM_DIST)/bin --out $(NPM_DIST)

docs:
	$(GO) run ./internal/gendocs dist/docs

goreleaser:
	bash scripts/install-goreleaser.sh
	"$$(bash scripts/install-goreleaser.sh --print-path)" check
	"$$(bash scripts/install-goreleaser.sh --print-path)" build --snapshot --clean

# Results per scenario go to test/conformance/out/; expected non-passes are in
# test/conformance/expected.txt. SCENARIOS="initialize sse-retry" runs fewer.
conformance: deps build
	bash test/conformance/run.sh $(CURDIR)/$(BIN)
