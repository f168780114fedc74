# xgr — see README.md. `make run` runs the main job, `make test` every test.
GO           ?= go
STATICCHECK  ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
PKGS         := ./...
BENCHTIME    ?= 1s

.PHONY: image image-check run test preflight provider lint fmt-check vet unit bench bench-peers bench-trees fuzz tools contracts bindings contracts-check build clean chaos chaos-short chaos-lint difftest

## run: the main job on embedded defaults
run:
	$(GO) run ./cmd/xgr --log-level warn dev --exit-when-done

## build: the xgr binary into bin/, its version stamped from git describe (VERSION=…
## overrides); `xgr version` prints it with the source revision Go records
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION     ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS      := -X github.com/xgr-sidecar/xgr/internal/build.Version=$(VERSION) -X github.com/xgr-sidecar/xgr/internal/build.Revision=$(REVISION)
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/xgr ./cmd/xgr

## image: an OCI image of xgr without a Docker daemon (ko; its base made from the host's
## CA bundle, nothing pulled) as bin/xgr-image.tar, loadable with docker load
image:
	@bash scripts/image.sh

## image-check: make image, then inspect the tarball (manifest, config, the binary)
image-check: image
	$(GO) test -tags image -count=1 -run '^TestImageTarball$$' ./internal/build

## test: preflight, vet, formatting, staticcheck and every test (race detector on the concurrent packages)
test: preflight lint unit

## preflight: say where the tests' Redis and anvil run (XGR_TEST_PROVIDER=docker|local|auto,
## default auto) and check within seconds that every tool the tests need is present (go,
## redis-server, anvil, solcjs, node and ethers, dot, chromium); stops here listing each
## missing thing and how to install it, or when no provider can serve
preflight:
	@command -v $(GO) >/dev/null 2>&1 || { echo "preflight: $(GO) not found: install Go $$(sed -n 's/^go //p' go.mod) from https://go.dev/dl" >&2; exit 1; }
	@out=$$($(GO) run ./testenv/preflight/report 2>&1); rc=$$?; \
	printf '%s\n' "$$out" | grep -v '^exit status [0-9]*$$'; exit $$rc

## provider: the former name of preflight
provider: preflight

lint: vet fmt-check
	$(GO) run $(STATICCHECK) $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# Every test runs under the race detector except the exhaustive event-order
# test of the pure join core, which would take minutes under it.
SLOW_PURE := TestJoinEveryOrder
unit: preflight
	$(GO) test -race -count=1 -skip '^$(SLOW_PURE)$$' ./...
	$(GO) test -count=1 -tags xgrfailpoint ./internal/failpoint
	$(GO) test -count=1 -run '^$(SLOW_PURE)$$' ./reactor

## bench: every benchmark with allocation figures
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

## bench-peers: xgr bench against the asynq chain harness (bench/peers, its own Go
## module) on one private redis-server, three rounds each, and the median ratio
## (docs/performance.md; knobs BENCH_ROUNDS, BENCH_SESSIONS, BENCH_CONCURRENCY, XGR_POLL)
bench-peers:
	@bash scripts/bench-peers.sh

## bench-trees: xgr bench on examples/bench/tree16.json against the go-workflows tree
## harness (bench/peers/cmd/gwtree) on one private redis-server, three rounds each, and
## the median ratio per activity (docs/performance.md; knobs as bench-peers, and GW_CACHE)
bench-trees:
	@bash scripts/bench-trees.sh

## fuzz: run each fuzz target for FUZZTIME (default 30s)
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./registry
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/jsondoc
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./rule
	$(GO) test -run '^$$' -fuzz '^FuzzExpr$$' -fuzztime $(FUZZTIME) ./rule
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $(FUZZTIME) ./rule
	$(GO) test -run '^$$' -fuzz '^FuzzExecSignature$$' -fuzztime $(FUZZTIME) ./rule
	$(GO) test -run '^$$' -fuzz '^FuzzExecArg$$' -fuzztime $(FUZZTIME) ./rule
	$(GO) test -run '^$$' -fuzz '^FuzzParseConfig$$' -fuzztime $(FUZZTIME) ./execution
	$(GO) test -run '^$$' -fuzz '^FuzzParseSignature$$' -fuzztime $(FUZZTIME) ./chain
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./reactor/wakeup
	$(GO) test -run '^$$' -fuzz '^FuzzVerify$$' -fuzztime $(FUZZTIME) ./rpc/permit
	$(GO) test -run '^$$' -fuzz '^FuzzParseSealed$$' -fuzztime $(FUZZTIME) ./envelope
	$(GO) test -run '^$$' -fuzz '^FuzzParseWrapped$$' -fuzztime $(FUZZTIME) ./envelope
	$(GO) test -run '^$$' -fuzz '^FuzzParseReadKey$$' -fuzztime $(FUZZTIME) ./envelope
	$(GO) test -run '^$$' -fuzz '^FuzzParsePublicHex$$' -fuzztime $(FUZZTIME) ./envelope

## difftest: the differential test of the two drivers (Runner and replicas) at length:
## DIFFTEST_CASES random orchestrations (default 5000) from DIFFTEST_SEED (default: the
## time, printed); DIFFTEST_CASE=i runs case i alone (docs/testing.md). `make test` runs
## 500 cases of seed 1.
DIFFTEST_CASES ?= 5000
difftest:
	DIFFTEST_CASES=$(DIFFTEST_CASES) DIFFTEST_SEED=$${DIFFTEST_SEED:-$$(date +%s)} \
	$(GO) test -race -count=1 -timeout 60m -run '^TestRandomAgree$$' -v ./reactor/difftest

## chaos: the chaos suite (not part of test): real `xgr run` replicas, redis-server
## with AOF and a Redis Cluster with replicas, kill -9s, a Redis restart, a pause, a
## master failover, then an audit of Redis; TestChaosExecutions kills replicas at every
## boundary of an execution (failpoints) and audits anvil; TestChaosRestore restores
## Redis from a backup and audits anvil; TestChaosDeepReorg reorgs anvil past
## finality during executions. Knobs: XGR_CHAOS_SESSIONS,
## _REPLICAS, _KILLS, _MASTER_KILLS, _DURATION, _SETTLE, _SEED, _EXEC_SESSIONS,
## _FAILPOINT_HIT, _FAILPOINT_KILLS, _REORGS, _REORG_DEPTH, XGR_CHAOS_RACE=1 (docs/testing.md).
CHAOS_RUN ?= TestChaos
chaos:
	$(GO) test -tags chaos -count=1 -timeout 30m -run '$(CHAOS_RUN)' ./chaos -v

## chaos-short: the short preset (three to five minutes; what CI runs): every run, and
## the fleet's own test; TestChaosExecutions with 20 sessions, one kill per failpoint;
## TestChaosRestore (backup, run, restore, audit from the chain; about 10 s),
## TestChaosDeepReorg with 20 sessions and 3 reorgs (about 15 s)
CHAOS_SHORT_RUN ?= ^(TestChaos|TestChaosTriggers|TestChaosAOFTail|TestChaosExecutions|TestChaosRestore|TestChaosDeepReorg|TestChaosFleet)$$
chaos-short:
	XGR_CHAOS_SESSIONS=$${XGR_CHAOS_SESSIONS:-60} XGR_CHAOS_KILLS=$${XGR_CHAOS_KILLS:-3} \
	XGR_CHAOS_DURATION=$${XGR_CHAOS_DURATION:-15s} XGR_CHAOS_SETTLE=$${XGR_CHAOS_SETTLE:-30s} \
	XGR_CHAOS_EXEC_SESSIONS=$${XGR_CHAOS_EXEC_SESSIONS:-20} XGR_CHAOS_FAILPOINT_KILLS=$${XGR_CHAOS_FAILPOINT_KILLS:-1} \
	$(GO) test -tags chaos -count=1 -timeout 12m -run '$(CHAOS_SHORT_RUN)' ./chaos -v

## chaos-lint: vet and staticcheck of the chaos suite (its files carry the chaos tag)
chaos-lint:
	$(GO) vet -tags chaos ./chaos
	$(GO) run $(STATICCHECK) -tags chaos ./chaos

## tools: install redis-server (apt), anvil, solc and ethers (npm, pinned) when missing
tools:
	@bash scripts/install-tools.sh

## contracts: compile contracts/*.sol with the pinned solc-js (.tools/) into contracts/build/
contracts:
	node scripts/compile-contracts.js

# abigen of exactly the go-ethereum version in go.mod, run outside this module
# so its command-line dependencies stay out of go.mod.
GETH_VERSION = $$($(GO) list -m -f '{{.Version}}' github.com/ethereum/go-ethereum)
ABIGEN       = $(GO) run github.com/ethereum/go-ethereum/cmd/abigen@$(GETH_VERSION)
BINDINGS     := XRC729:xrc729 XRC137:xrc137 MetaReader:metareader XRC563:xrc563

## bindings: generate the Go bindings contracts/<name>/ from contracts/build/ (abigen v2)
bindings:
	@set -e; for b in $(BINDINGS); do \
	  name=$${b%%:*}; pkg=$${b##*:}; mkdir -p contracts/$$pkg; \
	  echo "abigen: contracts/build/$$name.{abi,bin} -> contracts/$$pkg/$$pkg.go"; \
	  $(ABIGEN) --v2 --abi contracts/build/$$name.abi --bin contracts/build/$$name.bin \
	    --pkg $$pkg --type $$name --out contracts/$$pkg/$$pkg.go; \
	done

## contracts-check: rebuild artifacts and bindings; fail if anything under contracts/ changed
contracts-check:
	@$(MAKE) --no-print-directory contracts
	@$(MAKE) --no-print-directory bindings
	@git diff --exit-code --stat -- contracts/ || { echo "contracts-check: committed artifacts or bindings are stale: run make contracts bindings and commit" >&2; exit 1; }
	@extra=$$(git status --porcelain --untracked-files=all -- contracts/); \
	if [ -n "$$extra" ]; then echo "contracts-check: uncommitted files under contracts/:" >&2; echo "$$extra" >&2; exit 1; fi

clean:
	rm -rf bin
