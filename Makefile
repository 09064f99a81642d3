# takt: the two commands of the README, and the rest of the developer loop.
#   make run    runs takt's main job on a built-in default (takt demo)
#   make test   builds and runs every test, then the concurrency tests under ThreadSanitizer
#   make bench  runs the benchmarks and writes JSON under build/bench/
#   make install PREFIX=DIR  installs the takt program and the runtime library (docs/runtime.md)
# Each target runs scripts/setup first (it installs only what is missing).

CMAKE ?= cmake
CTEST ?= ctest
TAKT := build/release/takt
PREFIX ?= /usr/local

.PHONY: all setup build run demo test test-release test-tsan bench install clean

all: build

setup:
	@scripts/setup

build: setup
	@$(CMAKE) --preset release >/dev/null
	@$(CMAKE) --build --preset release

run: build
	$(TAKT) demo

test: test-release test-tsan

test-release: build
	$(CTEST) --preset release

test-tsan: setup
	@$(CMAKE) --preset tsan >/dev/null
	@$(CMAKE) --build --preset tsan
	$(CTEST) --preset tsan

bench: build
	@mkdir -p build/bench
	$(TAKT) bench runtime --json build/bench/runtime.json
	$(TAKT) bench sched --json build/bench/sched.json
	$(TAKT) bench latency --json build/bench/latency.json
	$(TAKT) bench analyze --json build/bench/analyze.json
	$(TAKT) bench cpus --json build/bench/cpus.json
	$(TAKT) bench layout --json build/bench/layout.json
	$(TAKT) bench policies --json build/bench/policies.json

install: build
	$(CMAKE) --install build/release --prefix $(PREFIX)

clean:
	rm -rf build
