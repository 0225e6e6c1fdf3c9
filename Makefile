# SPDX-License-Identifier: MIT
# gputally: one GNU Makefile.  `make help` lists the targets.

.SUFFIXES:
SHELL = /bin/sh

ifeq ($(origin CC),default)
CC = cc
endif
PREFIX  ?= /usr/local
O       ?= build
DEPS_OK := $(O)/.deps-ok

WARN    = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wwrite-strings -Wvla -Wformat=2 -Wundef -Wno-format-nonliteral
CSTD    = -std=c11 -D_GNU_SOURCE
OPT     ?= -O2 -g
HARDEN  = -D_FORTIFY_SOURCE=2 -fstack-protector-strong
PKGS    = zlib libzstd inih sqlite3 expat
# libmicrohttpd and libcurl: their headers at build time; the libraries are
# dlopen()ed by --listen and --prometheus (src/record/http.c, src/formats/curl_dl.c)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) libmicrohttpd libcurl 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lz -lzstd -linih -lsqlite3 -lexpat)
CFLAGS  ?=
# CPPFLAGS and LDFLAGS (dpkg-buildflags in a package build) are added as given.
ALL_CFLAGS = $(CSTD) $(OPT) $(WARN) -Isrc -I$(O)/gen $(PKG_CFLAGS) -pthread -MMD -MP $(CPPFLAGS) $(CFLAGS)
LDLIBS  = $(PKG_LIBS) -lm -ldl -pthread

ifdef SANITIZE
O       = build-san
OPT     = -O1 -g -fno-omit-frame-pointer
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
LDLIBS  += -fsanitize=$(SANITIZE)
HARDEN  =
endif
ifdef DEVELOPER
WARN += -Werror
endif
ALL_CFLAGS += $(HARDEN)

LIB_SRCS  := $(sort $(shell find src -name '*.c' ! -path 'src/main.c'))
LIB_OBJS  := $(LIB_SRCS:%.c=$(O)/%.o)
FMT_SRCS  := $(sort $(wildcard src/formats/fmt_*.c))
DET_SRCS  := $(sort $(wildcard src/analysis/det_*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
GEN_HDRS  := $(O)/gen/formats_list.h $(O)/gen/detectors_list.h $(O)/gen/presets.inc $(O)/gen/prices.inc \
             $(O)/gen/version_string.h

BIN = $(O)/gputally
# Fake NVML libraries for the record tests: a current driver, and an old one without the newer symbols.
FAKE_NVML = $(O)/fake-nvml/libnvidia-ml.so.1 $(O)/fake-nvml-min/libnvidia-ml.so.1
# Record test helpers: an ENOSPC/EIO injector (LD_PRELOAD), a strict .prom checker, an allocation count.
RECORD_HELPERS = $(O)/inject/libinject.so $(O)/record-tests/promcheck $(O)/record-tests/alloc_loop

.PHONY: FORCE deb all deps test check check-all demo bench fuzz fuzz-replay san install clean help bench-record device-bin
all: $(BIN) $(O)/fuzz_replay $(O)/gen-logs $(O)/gen-kernlog

help:
	@echo "make            build $(BIN)"
	@echo "make demo       install deps, build, report on examples/h200-training"
	@echo "make check      install deps, build, run every test (unit, formats, golden, fuzz replay, sanitizers)"
	@echo "make test       the quick tier only (no sanitizer build)"
	@echo "make bench      throughput and memory benchmark against mawk on a generated 1.2 GB log; 1 GB kern.logs with rare and with frequent NVIDIA lines against grep (bench/kernlog.sh); traces (bench/trace.sh); the store's costs and a 30-day ingest against report (bench/store.sh); report --json on 1x and 4x of a long many-finding log (bench/scale.sh); then the verdicts (bench/summary.sh)"
	@echo "make bench-record  CPU and memory of 'gputally record' with 8 fake GPUs at 1 s and 100 ms"
	@echo "make bench-prom    time and memory of 'report --prometheus' over a backfilled week of 24 GPUs"
	@echo "make fuzz       build the libFuzzer target with clang and run it for FUZZ_TIME seconds"
	@echo "make deb        build $(O)/deb/gputally_<version>_<arch>.deb (dpkg-buildpackage, debian/), checked by lintian"
	@echo "make device-bin build/device/gputally with zlib, zstd and inih linked in, for scripts/device-check.sh"
	@echo "make SANITIZE=address,undefined test   the quick tier under ASan+UBSan"

# Missing Debian packages are installed once per build directory.
$(DEPS_OK): scripts/install-deps.sh
	@mkdir -p $(O) $(dir $@)
	@sh scripts/install-deps.sh test
	@touch $@
deps: $(DEPS_OK)

# Generated: the format table (one line per src/formats/fmt_*.c), the detector
# table (one line per src/analysis/det_*.c) and the embedded profile presets.
$(O)/gen/formats_list.h: $(FMT_SRCS) Makefile | $(DEPS_OK)
	@mkdir -p $(@D)
	@for f in $(FMT_SRCS); do b=$${f##*/fmt_}; echo "FORMAT($${b%.c})"; done >$@.tmp && mv $@.tmp $@
$(O)/gen/detectors_list.h: $(DET_SRCS) Makefile | $(DEPS_OK)
	@mkdir -p $(@D)
	@for f in $(DET_SRCS); do b=$${f##*/det_}; echo "DETECTOR($${b%.c})"; done >$@.tmp && mv $@.tmp $@
$(O)/gen/presets.inc: $(wildcard profiles/*.ini) scripts/embed-profiles.sh
	@mkdir -p $(@D)
	@sh scripts/embed-profiles.sh profiles/*.ini >$@.tmp && mv $@.tmp $@
# The built-in price table (docs/prices.md): data/gpu-prices.csv as one C string.
$(O)/gen/prices.inc: data/gpu-prices.csv scripts/embed-prices.sh
	@mkdir -p $(@D)
	@sh scripts/embed-prices.sh data/gpu-prices.csv >$@.tmp && mv $@.tmp $@

# The version (scripts/version.sh: git describe or VERSION), looked at on every
# make; the header is rewritten only when it changed, so only
# src/util/version.c is recompiled after a commit.
$(O)/gen/version_string.h: FORCE
	@mkdir -p $(@D)
	@v=$$(sh scripts/version.sh) && printf '#define GPUTALLY_VERSION "%s"\n' "$$v" >$@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

$(O)/%.o: %.c | $(DEPS_OK) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/libgputally.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(O)/src/main.o $(O)/libgputally.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# For another machine (the GPU check, scripts/device-check.sh): zlib, zstd and
# inih linked in, so only glibc (and NVML, loaded at run time) must be there.
$(O)/device/gputally: $(O)/src/main.o $(O)/libgputally.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -Wl,-Bstatic -lzstd -lz -linih -Wl,-Bdynamic -lsqlite3 -lexpat -lm -ldl -pthread

device-bin: $(O)/device/gputally

$(O)/tests/%: tests/unit/%.c tests/unit/test.h $(O)/libgputally.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(O)/libgputally.a $(LDLIBS) -lcmocka

$(O)/fuzz_replay: fuzz/fuzz_formats.c fuzz/replay_main.c $(O)/libgputally.a
	$(CC) $(ALL_CFLAGS) -o $@ fuzz/fuzz_formats.c fuzz/replay_main.c $(O)/libgputally.a $(LDLIBS)

$(O)/gen-logs: bench/gen.c $(O)/libgputally.a
	$(CC) $(ALL_CFLAGS) -o $@ bench/gen.c $(O)/libgputally.a $(LDLIBS)

$(O)/gen-kernlog: bench/gen_kernlog.c
	$(CC) $(ALL_CFLAGS) -o $@ bench/gen_kernlog.c

$(O)/fake-nvml/libnvidia-ml.so.1: tests/fake-nvml/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g $(WARN) -fPIC -shared -fvisibility=hidden -pthread -o $@ $<
$(O)/fake-nvml-min/libnvidia-ml.so.1: tests/fake-nvml/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g $(WARN) -DFAKE_NVML_MINIMAL -fPIC -shared -fvisibility=hidden -pthread -o $@ $<
# Not sanitized: it is preloaded, and must not bring a second sanitizer runtime.
$(O)/inject/libinject.so: tests/inject/inject.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g $(WARN) -fPIC -shared -fvisibility=hidden -o $@ $< -ldl
$(O)/record-tests/promcheck: tests/record/promcheck.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $<
$(O)/record-tests/alloc_loop: tests/record/alloc_loop.c $(O)/libgputally.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(O)/libgputally.a $(LDLIBS)

# ---- tests -------------------------------------------------------------
.PHONY: unit
TEST_TARGETS += unit
unit: $(UNIT_BINS) $(FAKE_NVML)
	@FAKE_NVML_DIR=$(abspath $(O)) sh tests/run-unit.sh $(UNIT_BINS)
.PHONY: record-tests
TEST_TARGETS += record-tests
record-tests: $(BIN) $(FAKE_NVML) $(RECORD_HELPERS)
	@sh tests/record/run.sh $(BIN) $(O)
.PHONY: doctor-tests
TEST_TARGETS += doctor-tests
doctor-tests: $(BIN) $(FAKE_NVML)
	@sh tests/doctor/run.sh $(BIN) $(O)
.PHONY: formats
TEST_TARGETS += formats
formats: $(BIN)
	@sh tests/run-formats.sh $(BIN)
.PHONY: golden
TEST_TARGETS += golden
golden: $(BIN)
	@sh tests/run-golden.sh $(BIN)
.PHONY: machine-tests
TEST_TARGETS += machine-tests
machine-tests: $(BIN)
	@sh tests/machine/run.sh $(BIN)
.PHONY: corpus
TEST_TARGETS += corpus
corpus: $(BIN)
	@sh tests/run-corpus.sh $(BIN)
# hand-made cases of every issue 15 class (tests/issue15/README.md)
.PHONY: issue15
TEST_TARGETS += issue15
issue15: $(BIN)
	@sh tests/run-corpus.sh $(BIN) tests/issue15
.PHONY: fuzz-replay
TEST_TARGETS += fuzz-replay
fuzz-replay: $(O)/fuzz_replay
	@$(O)/fuzz_replay fuzz/regressions fuzz/corpus tests/formats
# The HTML/Markdown reports against the JSON, and rendered by headless Chromium.
.PHONY: html-tests
TEST_TARGETS += html-tests
html-tests: $(BIN)
	@sh tests/html/run.sh $(BIN) $(O)/html-test
# Issue 30: text, Markdown and HTML show the JSON's numbers (one computed report, every writer)
.PHONY: writers-tests
TEST_TARGETS += writers-tests
writers-tests: $(BIN)
	@sh tests/writers/run.sh $(BIN)
.PHONY: check-layers
TEST_TARGETS += check-layers
check-layers:
	@sh scripts/check-layers.sh
	@sh tests/layers/run.sh
# shell test checks that cannot fail (a $$? read after a command substitution)
.PHONY: check-tests
TEST_TARGETS += check-tests
check-tests:
	@sh scripts/check-tests.sh
.PHONY: check-docs
TEST_TARGETS += check-docs
check-docs: $(BIN)
	@sh tests/check-docs.sh $(BIN)
.PHONY: check-timeless
TEST_TARGETS += check-timeless
check-timeless: $(BIN)
	@sh tests/check-timeless.sh $(BIN)
.PHONY: leak-e2e
TEST_TARGETS += leak-e2e
leak-e2e: $(BIN)
	@sh tests/leak/run.sh $(BIN)
# issue 29: findings, leaks, evidence and GPU names on generated long runs replaying the capture
.PHONY: judge-tests
TEST_TARGETS += judge-tests
judge-tests: $(BIN)
	@sh tests/judge/run.sh $(BIN)
# gputally trace against figures recomputed in Python from the same traces
.PHONY: trace-check
TEST_TARGETS += trace-check
trace-check: $(BIN)
	@python3 tests/trace/check.py $(BIN) tests/trace/data/*.json.gz tests/trace/*.json \
		tests/formats/kineto/y_basic.json tests/formats/kineto/y_old_layout.json tests/formats/kineto/y_bare_array.json
	@python3 tests/trace/check_nsys.py $(BIN) tests/formats/nsys-sqlite/y_*.sql tests/trace/data/*.json.gz
	@python3 tests/trace/report_check.py $(BIN)

# issue 31: a month at a glance on 30 generated days of 8 GPUs: the sums, the page's size, its load time in Chromium
.PHONY: month-tests
TEST_TARGETS += month-tests
month-tests: $(BIN) $(O)/gen-logs
	@sh tests/month/run.sh $(BIN) $(O)/gen-logs $(O)/month-test

# gputally scale against the worked figures of sources.md and an independent fit
.PHONY: scale-tests
TEST_TARGETS += scale-tests
scale-tests: $(BIN)
	@sh tests/scale/run.sh $(BIN)

# the articles' numbers in docs/worked-examples.md, each command run and its output checked
.PHONY: worked-examples
TEST_TARGETS += worked-examples
worked-examples: $(BIN)
	@python3 tests/worked/check.py $(BIN) docs/worked-examples.md

# per-second states on the bundled capture against its app log (within and around phases)
.PHONY: state-accuracy
TEST_TARGETS += state-accuracy
state-accuracy: $(BIN)
	@sh tests/states/run.sh $(BIN)

# gputally alert on hand-made logs, the Prometheus rules (promtool), the Grafana dashboard, and
# delivery to a real Alertmanager and a local webhook receiver (tests/alert/deliver.sh)
.PHONY: alert-tests
TEST_TARGETS += alert-tests
alert-tests: $(BIN)
	@sh tests/alert/run.sh $(BIN)
	@sh tests/alert/deliver.sh $(BIN)

# Kernel logs on the real H200 capture and generated bad input, times against a Python recount
.PHONY: kernel-tests
TEST_TARGETS += kernel-tests
kernel-tests: $(BIN)
	@sh tests/kernel/run.sh $(BIN)

# The audit does not change with file times, TZ, input order, split or joined
# logs, or a trip through the store (issue 28; tests/invariance/invariance.py)
.PHONY: invariance
TEST_TARGETS += invariance
invariance: $(BIN)
	@sh tests/invariance/run.sh $(BIN)

# The history store: ingest, trend and report --db against recounts (docs/store.md)
.PHONY: store-tests
TEST_TARGETS += store-tests
store-tests: $(BIN) $(O)/gen-logs $(O)/inject/libinject.so
	@sh tests/store/run.sh $(BIN) $(O)/gen-logs $(O)/inject/libinject.so

# Issue 33: FIFOs and pipes, two writers of one store, bounds on reads, terminal escapes
.PHONY: stream-tests
TEST_TARGETS += stream-tests
stream-tests: $(BIN)
	@sh tests/streams/run.sh $(BIN)

# Issue 30: one bad-line and --strict policy for every command that reads logs (src/pipeline/)
.PHONY: pipeline-tests
TEST_TARGETS += pipeline-tests
pipeline-tests: $(BIN)
	@sh tests/pipeline/run.sh $(BIN)

.PHONY: bench-prom
# report --prometheus against a real Prometheus and three recorders, and a misbehaving fake server
.PHONY: prom-tests
TEST_TARGETS += prom-tests
prom-tests: $(BIN) $(FAKE_NVML)
	@sh tests/prom/run.sh $(BIN) $(O)

# The Debian package: make deb, lintian, install into a throwaway root, run, purge (tests/deb/run.sh);
# not again under SANITIZE: the package is built with Debian's flags either way
.PHONY: deb-tests
TEST_TARGETS += deb-tests
deb-tests: $(BIN)
ifdef SANITIZE
	@echo "deb-tests: SKIP under SANITIZE (the package does not change; make test runs it)"
else
	@sh tests/deb/run.sh $(BIN) $(O)
endif

# Every tier of `make test`: each tier's rule above adds itself with
# `TEST_TARGETS += NAME` beside it (a new test suite is one block), and they
# run in the order of the file.
test: all $(FAKE_NVML) $(RECORD_HELPERS)
	@$(MAKE) --no-print-directory $(TEST_TARGETS)

san:
	@$(MAKE) --no-print-directory SANITIZE=address,undefined test

check: deps
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory san
	@echo "check: all tiers passed"

# ---- the user-facing jobs ----------------------------------------------
demo: $(DEPS_OK) $(BIN)
	$(BIN) report --profile h200-vs-cloud examples/h200-training

bench: all
	@sh scripts/install-deps.sh bench
	@mkdir -p $(O)/bench && rm -f $(O)/bench/*.out
	@sh bench/run.sh $(O) | tee $(O)/bench/run.out
	@sh bench/kernlog.sh $(O) | tee $(O)/bench/kernlog.out
	@sh bench/trace.sh $(O) | tee $(O)/bench/trace.out
	@sh bench/store.sh $(O) | tee $(O)/bench/store.out
	@sh bench/scale.sh $(O) | tee $(O)/bench/scale.out
	@if command -v prometheus >/dev/null && command -v promtool >/dev/null; then sh bench/prom.sh $(BIN) $(O); \
	else echo "bench-prom: SKIP: prometheus and promtool are not installed (Debian's prometheus package, scripts/install-deps.sh test): no --prometheus figures"; fi
	@sh bench/summary.sh $(O)

# The recorder's CPU and memory cost with 8 fake GPUs (not part of make test).
bench-record: $(BIN) $(FAKE_NVML)
	@sh bench/record.sh $(BIN) $(O)

# report --prometheus over a backfilled week of 24 GPUs: time and peak RSS (not part of make test).
bench-prom: $(BIN)
	@sh bench/prom.sh $(BIN) $(O)

FUZZ_TIME ?= 60
fuzz: $(GEN_HDRS)
	@sh scripts/install-deps.sh fuzz
	@mkdir -p build-fuzz
	clang $(CSTD) -O1 -g -Isrc -Ibuild/gen -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o build-fuzz/fuzz_formats fuzz/fuzz_formats.c $(LIB_SRCS) $(PKG_LIBS) -lm -pthread
	@mkdir -p build-fuzz/corpus
	build-fuzz/fuzz_formats -max_total_time=$(FUZZ_TIME) -max_len=4096 build-fuzz/corpus fuzz/corpus tests/formats
	@echo "new inputs are in build-fuzz/corpus; to keep them: build-fuzz/fuzz_formats -merge=1 fuzz/corpus build-fuzz/corpus"

# The Debian package, built with dpkg-buildpackage in a copy of the tree
# (scripts/mkdeb.sh, debian/): $(O)/deb/gputally_<version>_<arch>.deb.
deb:
	@sh scripts/install-deps.sh deb
	@sh scripts/mkdeb.sh $(O)/deb

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/gputally
	install -m 644 docs/gputally.1 $(DESTDIR)$(PREFIX)/share/man/man1/gputally.1

clean:
	rm -rf build build-san build-fuzz

# (not the package build's copy of the tree under $(O)/deb, nor its etc/logrotate.d)
-include $(shell find $(O) -path $(O)/deb -prune -o -name '*.d' -type f -print 2>/dev/null)
