# The two commands README.md promises: `make run` and `make test`.
.PHONY: run test unit testenv fuzz demo bench man

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

demo:
	bash scripts/demo.sh

# One man page per command, from each command's --help (examples included),
# into ./man (git-ignored: generated, like a release's archives).
man:
	go run ./cmd/standup __man man
