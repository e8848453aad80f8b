# The two commands README.md promises: `make run` and `make test`.
.PHONY: run test unit testenv fuzz demo bench bench-record build install release-check release-snapshot man

# The version stamped into the binary: the nearest tag, else the commit, with
# -dirty for uncommitted changes. Without git it is empty and the binary
# falls back to its build information (cmd/standup/version.go).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION)
BINDIR ?= bin
EXE := $(shell go env GOEXE)
# goreleaser v2.15.1 is the last release that builds with Go 1.26.
GORELEASER := go run github.com/goreleaser/goreleaser/v2@v2.15.1

run:
	go run ./cmd/standup tiers --path examples/homelab/clusters/prod

test:
	bash scripts/test.sh

unit:
	go test -race -short ./...

testenv:
	bash scripts/testenv.sh

fuzz:
	bash scripts/fuzz.sh

# make demo KEEP=1 leaves the world up and prints how to use and stop it.
demo:
	bash scripts/demo.sh $(if $(filter 1 yes true,$(KEEP)),--keep)

# The cold-start benchmarks (docs/benchmarks.md): one run per scenario, for
# development; bench-record regenerates the page's tables (full mode, in the
# background, its log and tables in a directory it names).
bench:
	bash scripts/bench-coldstart.sh quick

bench-record:
	bash scripts/bench-coldstart.sh full --write-doc --background

# ./bin/standup, reporting $(VERSION).
build:
	go build -ldflags "$(LDFLAGS)" -o $(BINDIR)/standup$(EXE) ./cmd/standup

# Into $GOBIN, else $(go env GOPATH)/bin, as go install does; same flags as build.
install:
	go install -ldflags "$(LDFLAGS)" ./cmd/standup

# Validate .goreleaser.yaml with the real goreleaser (built from the module proxy).
release-check:
	$(GORELEASER) check

# This machine's release binaries (standup and flux-standup) into dist/, no
# tag needed; one build at a time, so that the second only links.
release-snapshot:
	$(GORELEASER) build --snapshot --clean --single-target --parallelism 1

# One man page per command, from each command's --help (examples included),
# into ./man (git-ignored: generated, like a release's archives).
man:
	go run ./cmd/standup __man man
