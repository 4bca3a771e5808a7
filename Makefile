# rooftool — build, test, bench, vet, fuzz. go-sqlite3 needs cgo.
export CGO_ENABLED := 1
# The first Go >= 1.26 of PATH, ~/.local/go, /usr/local/go (where
# scripts/setup.sh looks, and installs one if none).
GO ?= $(shell for g in "$$(command -v go)" "$$HOME/.local/go/bin/go" /usr/local/go/bin/go; do [ -x "$$g" ] && GOTOOLCHAIN=local "$$g" version | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])' && echo "$$g" && exit; done; echo go)
# The project venv of scripts/setup.sh where there is one, else python3.
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
BIN := bin/rooftool
FUZZTIME ?= 30s

.PHONY: build install test test-go test-py vet bench fuzz demo gpu-check slurm-test clean release-bin wheel wheel-test dist

VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# The commit (-dirty where tracked files differ from it) and the build
# date that `rooftool version` prints.
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
export LDFLAGS_X := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(BUILD_DATE)

build:
	$(GO) build -ldflags "$(LDFLAGS_X)" -o $(BIN) ./cmd/rooftool

# bin/rooftool into $(PREFIX)/bin (a user directory by default: no root),
# with the line to add to PATH where that directory is not on it; the
# kernels folder profile runs into $(PREFIX)/share/rooftool/kernels, where
# the binary finds it outside a clone (scripts/kernels-stage.sh); and the
# completion scripts into the user's own folders: bash-completion's user
# folder (loaded on demand), a zsh site-functions folder (for fpath), fish's.
PREFIX ?= $(HOME)/.local
DATA_HOME := $(or $(XDG_DATA_HOME),$(HOME)/.local/share)
BASH_COMPLETION_DIR ?= $(or $(BASH_COMPLETION_USER_DIR),$(DATA_HOME)/bash-completion)/completions
ZSH_COMPLETION_DIR ?= $(DATA_HOME)/zsh/site-functions
FISH_COMPLETION_DIR ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/fish/completions
install: build
	@mkdir -p "$(PREFIX)/bin"
	install -m 0755 $(BIN) "$(PREFIX)/bin/rooftool"
	scripts/kernels-stage.sh "$(PREFIX)/share/rooftool/kernels"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) \
	  echo "install: $(PREFIX)/bin is not on PATH; to type rooftool, run (and add to ~/.bashrc or ~/.profile):"; \
	  echo "    export PATH=\"$(PREFIX)/bin:\$$PATH\"";; esac
	@mkdir -p "$(BASH_COMPLETION_DIR)" "$(ZSH_COMPLETION_DIR)" "$(FISH_COMPLETION_DIR)"
	./$(BIN) completion bash >"$(BASH_COMPLETION_DIR)/rooftool"
	./$(BIN) completion zsh >"$(ZSH_COMPLETION_DIR)/_rooftool"
	./$(BIN) completion fish >"$(FISH_COMPLETION_DIR)/rooftool.fish"
	@[ -r /usr/share/bash-completion/bash_completion ] || \
	  echo "install: bash completes rooftool once ~/.bashrc has: source \"$(BASH_COMPLETION_DIR)/rooftool\" (no bash-completion package here to load it)"
	@echo "install: zsh completes rooftool once ~/.zshrc has, before compinit: fpath=($(ZSH_COMPLETION_DIR) \$$fpath)"

# A stripped release binary for this machine (-trimpath, no symbol table
# or DWARF): what the wheel and the release archives hold.
HOSTARCH = $(shell $(GO) env GOARCH)
RELEASE_BIN = build/release/linux-$(HOSTARCH)/rooftool
release-bin:
	$(GO) build -trimpath -ldflags "-s -w $(LDFLAGS_X)" -o $(RELEASE_BIN) ./cmd/rooftool

# dist/rooftool-<version>-py3-none-manylinux_X_Y_<arch>.whl: pip install it
# into any virtual environment; rooftool lands on its PATH, the kernels
# folder it profiles with in its share/rooftool/kernels and rooftool_marks
# on its sys.path (packaging/wheel, scripts/wheel.sh).
wheel: release-bin
	scripts/wheel.sh $(RELEASE_BIN) dist

# The wheel alone installed into a fresh venv (pip --no-index --no-deps) and
# run from outside the repository with no Go on PATH: its kernels found,
# plan listing the built-in experiments, doctor naming the installed
# kernels folder (scripts/wheel-test.sh).
wheel-test: wheel
	scripts/wheel-test.sh dist

# dist/rooftool-$(VERSION)-linux-{amd64,arm64}.tar.gz (arm64 where its cgo
# cross compiler is installed) and dist/SHA256SUMS (scripts/dist.sh).
dist:
	scripts/dist.sh $(GO) $(VERSION) dist

test: test-go test-py

test-go:
	$(GO) test ./...

test-py:
	$(PYTHON) -m pytest -q kernels

# staticcheck at a pinned version, fetched and built by go run (cached
# after the first time); no install step.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt: files above need formatting"; exit 1)

# BenchmarkNsysScale (ingest/nsys) ingests 1M- and 10M-kernel nsys exports with
# the rooftool binary beside the sqlite3 CLI's join and DuckDB's GROUP BY;
# ROOFTOOL_BENCH_100M=1 adds the 100M one (an export of about 80 GB made on
# demand: the 1M replica is 0.8 GB, the 10M one 8.5 GB; README.md).
# BenchmarkStatsReports1M (ingest/nsys) times each stats --report beside the
# sqlite3 CLI running nsys's query of it, on the 1M replica
# (ROOFTOOL_REPLICA_1M=FILE reuses one made before).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 3h ./...

# -fuzzminimizetime keeps minimisation of the large real seeds from eating the budget.
fuzz:
	$(GO) test ./ingest/ncu -run '^$$' -fuzz '^FuzzNCUCSV$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./ingest/ncu -run '^$$' -fuzz '^FuzzNCURecords$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./ingest/ncu -run '^$$' -fuzz '^FuzzNCUUnits$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./ingest/kineto -run '^$$' -fuzz '^FuzzKineto$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./ingest/kineto -run '^$$' -fuzz '^FuzzKinetoGzip$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./ingest/nsys -run '^$$' -fuzz '^FuzzNsysSQLite$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

# The first report is the default run, embedded in the binary; the others
# are committed runs read by name from testdata/runs (run from the repository).
demo: build
	./$(BIN) report -o out/report
	./$(BIN) report 2026-11-22-h100-003504 -o out/report-h100-003504
	./$(BIN) report 2026-11-22-h100-034455 -o out/report-h100-034455
	./$(BIN) report 2026-11-26-h100-065510 -o out/report-h100-065510
	./$(BIN) report 2026-11-27-h100-222424 -o out/report-h100-222424

# On the GPU machine: every variant against its reference.
gpu-check:
	python3 kernels/run.py check --all --out out/check

# A throwaway single-node Slurm (root; apt-get install slurmctld slurmd
# slurm-client munge), a 2-shard fake sweep through it, then Slurm stopped.
SLURM_DIR ?= /tmp/slurm
slurm-test:
	S=$(SLURM_DIR) scripts/slurm-up.sh
	SLURM_CONF=$(SLURM_DIR)/etc/slurm.conf ROOFTOOL_SLURM_TEST=1 $(GO) test -count=1 -v -run '^TestSlurmReal$$' ./cmd/rooftool; \
	rc=$$?; S=$(SLURM_DIR) scripts/slurm-down.sh; exit $$rc

clean:
	rm -rf bin out build dist
