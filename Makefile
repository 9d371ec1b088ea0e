# The two commands of the README, and a few for developers. CMake does the building;
# this file only installs what is missing, configures, and runs.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS       ?= $(shell nproc)
# Tests run two more at a time than there are cores: much of the suite waits (on the
# emulator, on leases, stalls and throttles that run out in real time); on 2 cores the
# normal pass kept the CPUs a quarter busy at three at a time.
TEST_JOBS  ?= $(shell echo $$(($$(nproc) + 2)))
MAKEFLAGS  += --no-print-directory
CMAKE_ARGS ?=
# The one program that starts Azurite, for the tests, the demo and the benchmarks (and,
# installed, for `xio emulator`); scripts/install-deps.sh puts Azurite beside it.
AZURITE_SH := samples/testers/emulator/azurite/azurite.sh

.PHONY: all deps build samples install build-asan build-tsan test test-asan test-tsan test-fast demo \
        bench format lint clean bench-sqlite bench-peers bench-nbdkit fuzz soak

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Every sample without the tests (the CMake target `samples`): the libraries, the xio
# command line, the demo, the SQLite extension, the nbdkit plugin, the fault proxy,
# the benchmarks and the example engine; all the README's quick starts and
# `cmake --install` need. Quiet: a line says what it builds, the percent done follows
# on a terminal, and the compiler's output shows only when the build fails.
samples: deps
	@echo "samples: configuring $(BUILD)/ with CMake..."
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	@scripts/build.sh $(BUILD) samples $(JOBS) "samples: building the library, the xio command \
	line, the demo, the SQLite extension, the nbdkit plugin and the examples, not the tests \
	(about 3 min on 2 cores the first time, seconds after)"

# Installs the samples' build under PREFIX (default /usr/local; PREFIX=~/.local needs no
# root) and prints what a shell must set to use it there (cmake/install_note.cmake).
PREFIX ?= /usr/local
install: samples
	@cmake --install $(BUILD) --prefix "$(abspath $(patsubst ~%,$(HOME)%,$(PREFIX)))" || \
	  { echo "install: failed; without root: make install PREFIX=~/.local" >&2; exit 1; }

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DXIO_SANITIZE=ON \
	  -DXIO_BUILD_SAMPLES=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

build-tsan: deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DXIO_SANITIZE=thread \
	  -DXIO_BUILD_SAMPLES=OFF $(CMAKE_ARGS) >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS)

# Every test, in the normal build and again under AddressSanitizer + UBSan; the
# suites that drive many threads and requests at once also under ThreadSanitizer.
test: test-fast test-asan test-tsan

test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS)

test-asan: build-asan
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -LE no-asan

test-tsan: build-tsan
	@cd $(TSAN_BUILD) && ctest --output-on-failure -j $(TEST_JOBS) \
	  -R '^(xio_conf_local|xio_conf_pageblob|xio_pageblob|xio_local|xio_append|xio_held|blobio_fault|blobio)\.'

# The create-database demo (samples/demo, the xio-demo program) on the embedded
# Azurite, stopped again however it ends. Builds every sample first (make samples), so
# the README's quick starts all run after it. Extra options: DEMO_ARGS="...", e.g.
# DEMO_ARGS="--data-size 256M --log-size 64M" for a run of seconds.
demo: samples
	@echo "demo: starting Azurite (in memory, on a free loopback port)..."
	@state="$(abspath $(BUILD))/demo-azurite"; \
	  trap '$(AZURITE_SH) stop "$$state"' EXIT; trap 'exit 130' INT TERM; \
	  $(AZURITE_SH) start "$$state" >/dev/null || exit 1; \
	  $(AZURITE_SH) run "$$state" $(BUILD)/samples/xio-demo $(DEMO_ARGS)

# The growth benchmark (samples/bench): create/grow/zero by init policy on page blobs
# (an Azurite of its own, restarted when its memory fills) and local files, bulk and
# random I/O; results and plots in $(BUILD)/bench/. Extra options: BENCH_ARGS="...".
bench: build
	@scripts/install-deps.sh gnuplot-nox
	@out="$(abspath $(BUILD))/bench"; state="$$out/azurite"; \
	  trap '$(AZURITE_SH) stop "$$state"' EXIT; trap 'exit 130' INT TERM; \
	  $(AZURITE_SH) start "$$state" || exit 1; \
	  $(BUILD)/samples/bench/xio-bench --out "$$out" --local-dir "$$out" \
	    --endpoint-file "$$state/endpoint" \
	    --emulator-reset "$(AZURITE_SH) start '$$state'" $(BENCH_ARGS); \
	  rc=$$?; echo "bench: results in $$out/ (results.md, results.csv, results.json, plots)"; \
	  exit $$rc

# The SQLite benchmark (samples/engines/sqlite/bench): WAL and DELETE mode on a local file and
# on a page blob of an Azurite of its own; the report in $(BUILD)/bench-sqlite/sqlite.md.
bench-sqlite: build
	@out="$(abspath $(BUILD))/bench-sqlite"; state="$$out/azurite"; mkdir -p "$$out"; \
	  trap '$(AZURITE_SH) stop "$$state"' EXIT; trap 'exit 130' INT TERM; \
	  $(AZURITE_SH) start "$$state" || exit 1; \
	  $(BUILD)/samples/engines/sqlite/xio-sqlite-bench --endpoint-file "$$state/endpoint" \
	    --local-dir "$$out" --out "$$out/sqlite.md"; \
	  rc=$$?; echo "bench-sqlite: report in $$out/sqlite.md"; exit $$rc

# The nbdkit plugin's benchmark (samples/engines/nbdkit/bench/bench.sh, as root): fio through
# NBD on a page blob, on nbdkit's memory plugin and xio-bench's random I/O; pgbench on
# ext4 on the export against a local file; bytes shipped vs cleared by mkfs.ext4 and
# new WAL segments. An Azurite of its own; the report in $(BUILD)/bench-nbdkit.md
# (copy it to docs/benchmarks/nbdkit.md). FIO_SECONDS, PGBENCH_SECONDS, PGBENCH_SCALE.
bench-nbdkit: build
	@samples/engines/nbdkit/bench/bench.sh $(BUILD) $(abspath $(BUILD))/bench-nbdkit.md

# The fault soak (tests/across/soak/) at length: each soak test runs SOAK_SECONDS (default
# 300, ten minutes for the two) through the fault proxy, each on a fresh Azurite
# (started without its 10-minute garbage-collection sweep, which stalls it for tens of
# seconds: see samples/testers/emulator/azurite/gc_interval.js); their report lines
# (requests, faults by kind, retries, bytes checked) are printed and kept in
# $(BUILD)/soak-report.txt. Each test runs in a process of its own, as under ctest
# (the SQLite VFS keeps one context per process). make test runs the same for 30 s
# each.
SOAK_SECONDS ?= 300
soak: build
	@state="$(abspath $(BUILD))/soak-azurite"; report="$(abspath $(BUILD))/soak-report.txt"; \
	  rm -f "$$report"; trap '$(AZURITE_SH) stop "$$state"' EXIT; trap 'exit 130' INT TERM; \
	  rc=0; for s in soak soak_sqlite; do \
	    [ -x "$(BUILD)/tests/test_$$s" ] || { echo "soak: $$s not built (samples off)"; continue; }; \
	    $(AZURITE_SH) stop "$$state" >/dev/null 2>&1; \
	    $(AZURITE_SH) start "$$state" >/dev/null || exit 1; \
	    for t in $$("$(BUILD)/tests/test_$$s" --list); do \
	      XIO_SOAK_SECONDS=$(SOAK_SECONDS) XIO_SOAK_REPORT="$$report" \
	      XIO_IMDS_ENDPOINT=http://127.0.0.1:9/metadata/identity/oauth2/token \
	      XIO_DMI_ASSET_TAG_FILE=/nonexistent/chassis_asset_tag \
	        $(AZURITE_SH) run "$$state" "$(BUILD)/tests/test_$$s" "$$t" || rc=1; \
	    done; \
	  done; echo "soak: report in $$report"; exit $$rc

# The peer benchmark (samples/bench/peers): the same transfers through the xio command and
# through the official JavaScript SDK (@azure/storage-blob, pinned with Azurite in
# samples/testers/emulator/azurite/package-lock.json), each client process on a fresh
# Azurite, over HTTP and HTTPS; medians and xio/JS ratios into docs/benchmarks/peers.md
# and peers.csv.
# BENCH_PEERS_SIZE=64M, BENCH_PEERS_RUNS=1, ... make it shorter (see bench.js).
bench-peers: build
	@out="$(abspath $(BUILD))/bench-peers"; state="$$out/azurite"; mkdir -p "$$out"; \
	  trap '$(AZURITE_SH) stop "$$state"' EXIT; trap 'exit 130' INT TERM; \
	  node samples/bench/peers/bench.js --xio $(BUILD)/samples/xio \
	    --tool $(BUILD)/samples/bench/peers/xio-peers --azurite $(AZURITE_SH) \
	    --node-modules $(dir $(AZURITE_SH))node_modules --out "$$out" \
	    --doc docs/benchmarks/peers.md --csv docs/benchmarks/peers.csv

# The fuzz targets (tests/across/fuzz/), built with clang and libFuzzer (ASan + UBSan), each
# run for FUZZ_SECONDS on its committed corpus, one after the other; prints the
# executions per target. FUZZ_TARGETS="url sas" picks some. (make test replays the
# corpora without clang.)
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz:
	@scripts/install-deps.sh clang libclang-rt-14-dev
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXIO_FUZZ=ON \
	  -DXIO_BUILD_SAMPLES=OFF $(CMAKE_ARGS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target xio_fuzzers
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/across/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

# Rewrites the tracked C sources and headers to .clang-format; make test checks the
# same files (tests/across/format/check.sh, ctest -L format) and fails on drift.
format: deps
	@git ls-files '*.c' '*.h' | xargs clang-format -i

lint: build
	@scripts/install-deps.sh clang-tidy cppcheck
	@git ls-files '*.c' | grep -v '^tests/' | xargs clang-tidy -p $(BUILD) --quiet
	@cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --suppress=missingIncludeSystem --inline-suppr -I auth/include -I auth/internal -I blobio/include \
	  -I xio/include auth blobio xio samples

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
