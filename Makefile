# ptxtrace build entry points. Everything goes through the go tool; the only
# other tools used are optional (nvcc for `make samples`).

GO       ?= go
BIN      := bin/ptxtrace
DEMO_OUT := demo-out
FUZZTIME ?= 30s
# Packages whose fuzz targets `make fuzz` runs.
FUZZPKGS ?= ./...
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)
# urfave_cli_no_docs drops urfave/cli's man/markdown generator (App.ToMan,
# App.ToMarkdown; ptxtrace calls neither) and with it go-md2man and
# blackfriday, whose package init ran on every invocation; grpcnotrace drops
# gRPC's golang.org/x/net/trace debug pages (/debug/requests handlers
# registered on http.DefaultServeMux at init; ptxtrace serves no HTTP and
# never enables gRPC tracing). See docs/startup.md.
TAGS     ?= urfave_cli_no_docs grpcnotrace
GOTAGS   := -tags '$(TAGS)'

.DEFAULT_GOAL := build
.PHONY: build test vet fmtcheck demo bench fuzz samples clean help

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-9s %s\n", $$1, $$2}'

build: ## build bin/ptxtrace (front: fmt, inspect) and bin/ptxtrace-full (the rest)
	$(GO) build $(GOTAGS) -ldflags '$(LDFLAGS)' -o $(dir $(BIN)) ./cmd/ptxtrace ./cmd/ptxtrace-full

vet: ## go vet every package
	$(GO) vet $(GOTAGS) ./...

fmtcheck: ## fail if any Go file is not gofmt-formatted
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

test: vet ## go vet, then all tests (tests needing absent tools skip)
	$(GO) test $(GOTAGS) -timeout 45m ./...

demo: build ## build and run the demo into demo-out/
	./$(BIN) demo -o $(DEMO_OUT)

bench: ## all benchmarks, with allocations
	$(GO) test $(GOTAGS) -run '^$$' -bench . -benchmem ./...

fuzz: ## run every fuzz target for FUZZTIME (default 30s) each
	@set -e; n=0; for pkg in $$($(GO) list $(FUZZPKGS)); do \
		list=$$($(GO) test $(GOTAGS) -list '^Fuzz' $$pkg 2>&1) || { echo "$$list" >&2; exit 1; }; \
		for target in $$(echo "$$list" | grep '^Fuzz'); do \
			echo "== $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test $(GOTAGS) -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg; \
			n=$$((n+1)); \
		done; \
	done; echo "fuzz: $$n targets run for $(FUZZTIME) each"

samples: ## regenerate samples/ PTX with nvcc (skipped without nvcc)
	@if ! command -v nvcc >/dev/null 2>&1; then \
		echo "samples: nvcc not found; skipped (the committed PTX in samples/ stays as is)"; \
	elif [ ! -f samples/generate.sh ]; then \
		echo "samples: samples/generate.sh not found" >&2; exit 1; \
	else \
		bash samples/generate.sh; \
	fi

clean: ## remove build and demo outputs
	rm -rf bin $(DEMO_OUT)
