# Stampede: the two set-up commands are `make run` and `make test`.
PROFILE ?= profiles/smoke.json5
SEED ?= 1
SWIFT ?= swift

.PHONY: run test test-long build bench instructions lint format deps clean dist install

deps:
	@scripts/bootstrap

build: deps
	$(SWIFT) build -c release --product stampede

## Runs the default profile and writes reports/<profile>/seed-<N>/ (report.json, .md, .html, junit.xml).
run: build
	.build/release/stampede run $(PROFILE) --seed $(SEED)

## Runs the test suite: every invariant's planted violation, the golden hashes of every shipped
## profile on seed 1, determinism across processes and the examples, in a few minutes.
test: deps
	$(SWIFT) test

## Runs every test, the long ones too: whole seed ranges, shrinking, scale runs, sweeps through
## the command line, every golden hash (nightly CI and before a release).
test-long: deps
	STAMPEDE_LONG_TESTS=1 $(SWIFT) test

## Kernel benchmark against the C++ reference (numbers quoted in the README).
bench: build
	.build/release/stampede bench kernel

## Instructions executed in the event loop (exactly repeatable; needs valgrind).
instructions: build
	scripts/count-instructions

## Swift files formatted per .swift-format: all but the seed documents' code, kept as printed.
FORMATTED = Package.swift Sources Tests Plugins Examples/ExampleApps Examples/ExampleSuites Examples/stampede-examples Examples/SeedApps/SeedSuites.swift

## Fails if any Swift file is not formatted per .swift-format.
lint:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format $(FORMATTED)

format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format $(FORMATTED)

## A self-contained archive in dist/: the binary with the Swift runtime linked statically, jemalloc
## beside it, the profiles and docs; checked by running it with the toolchain out of reach.
dist: deps
	scripts/dist

## Installs the archive's tree under PREFIX (default /usr/local): bin/stampede,
## lib/stampede/ (jemalloc and SQLite), share/stampede/profiles, share/doc/stampede.
PREFIX ?= /usr/local
install: dist
	mkdir -p "$(DESTDIR)$(PREFIX)"
	cp -R dist/stampede-*-linux-*/. "$(DESTDIR)$(PREFIX)/"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/stampede"

clean:
	rm -rf .build dist
