# rdma-diag — plain GNU make.  `make help` lists the targets.

VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
# monitoring/: alert rules, their promtool tests, the Grafana dashboard; the units to SYSTEMDUNITDIR
MONDIR ?= $(PREFIX)/share/rdma-diag/monitoring
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SCHEMADIR ?= $(PREFIX)/share/rdma-diag/schemas
DESTDIR ?=

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libibverbs librdmacm libnl-3.0 libnl-route-3.0 ncursesw json-c libibnetdisc libibmad libibumad smartcols

BUILD ?= build
# SAN=1: AddressSanitizer + UndefinedBehaviorSanitizer build (used by make check).
SAN ?=

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wvla
# -Wno-format-nonliteral: rd_out_* and rd_sys_* take printf formats from their callers
# and are marked __attribute__((format)), so the callers are checked instead.
ALL_CFLAGS := -std=gnu11 $(WARN) -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
	-DRD_VERSION='"$(VERSION)"' -Ilib $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
# Full RELRO: every symbol bound at load (-z now) and the GOT read-only after
# it, as distributions harden their packages.  A run then also skips the
# lazy-binding trampoline at each function's first call, whose saved vector
# registers reached fresh pages of stack (page faults) at the deepest calls.
ALL_LDFLAGS := -Wl,-z,relro,-z,now $(LDFLAGS)
ifeq ($(SAN),1)
ALL_CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -U_FORTIFY_SOURCE
ALL_LDFLAGS += -fsanitize=address,undefined
endif

# lib/<layer>/*.c: the library, one folder per layer (lib/README.md).
LIB_SRCS := $(sort $(wildcard lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:lib/%.c=$(BUILD)/obj/lib/%.o)
HDRS := $(wildcard lib/*/*.h tools/*/*.h)
# tools/<tool>/<tool>.c: each tool's main, in its own folder.
TOOLS := $(sort $(patsubst tools/%/,%,$(wildcard tools/rdma-*/)))
TOOL_SRCS := $(foreach t,$(TOOLS),tools/$(t)/$(t).c)
TOOL_BINS := $(TOOLS:%=$(BUILD)/%)
# tools/<tool>/*.c beside the main: code only that tool uses, linked into it (and
# into the unit tests).
TOOL_LOCAL_SRCS := $(filter-out $(TOOL_SRCS),$(sort $(wildcard tools/rdma-*/*.c)))
TOOL_LOCAL_OBJS := $(TOOL_LOCAL_SRCS:tools/%.c=$(BUILD)/obj/tools/%.o)
tool_local_objs = $(filter $(BUILD)/obj/tools/$(1)/%,$(TOOL_LOCAL_OBJS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
MANPAGES := $(sort $(wildcard man/*.1))
# Section 7: the kit's shared vocabulary, rdma-diag(7).
MANPAGES7 := $(sort $(wildcard man/*.7))
# bench/*.c: the floors and the timer the bench scripts set the tools against.
BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
LIBA := $(BUILD)/librdmadiag.a
MON_RULES := monitoring/rdma-diag.rules.yml
MON_TESTS := $(sort $(wildcard monitoring/tests/*.yml))
MON_DASH := monitoring/grafana/rdma-diag.json
MON_UNITS := $(sort $(wildcard monitoring/systemd/*.service monitoring/systemd/*.timer))

.SECONDARY:

.PHONY: fuzz fuzz-build check-fuzz
.PHONY: deb check-deb
.PHONY: all clean install uninstall deps check check-unit check-cli check-vm check-san check-valgrind \
	check-build check-tui lint-man lint demo help vm-prepare check-fleet bench-build check-quick \
	check-fabric check-mutants check-monitoring

all: $(LIBA) $(TOOL_BINS)

# V=1 shows the full commands.
Q := $(if $(V),,@)
say = $(if $(V),,@echo "  $(1)	$(2)";)

$(BUILD)/obj/lib/%.o: lib/%.c $(HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/obj/tools/%.o: tools/%.c $(HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The bench's programs, with the kit's warnings (the build tier builds them).
$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(PKG_LIBS)

bench-build: $(BENCH_BINS)

$(LIBA): $(LIB_OBJS)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

.SECONDEXPANSION:
$(BUILD)/rdma-%: $(BUILD)/obj/tools/rdma-$$*/rdma-$$*.o $$(call tool_local_objs,rdma-$$*) $(LIBA)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -Wl,--as-needed -o $@ $(filter %.o,$^) $(LIBA) $(PKG_LIBS) -lm -ldl

# Unit tests are white-box: they include a layer's unit headers ("stats/counters.h")
# and may test a tool's own code ("rdma-top/topfmt.h").
$(BUILD)/tests/%: tests/unit/%.c $(TOOL_LOCAL_OBJS) $(LIBA) | $(BUILD)/tests
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -Itools $(shell $(PKG_CONFIG) --cflags cmocka) $(ALL_LDFLAGS) -o $@ $< \
		$(TOOL_LOCAL_OBJS) $(LIBA) $(PKG_LIBS) $(shell $(PKG_CONFIG) --libs cmocka) -lm -ldl

$(BUILD)/tests:
	mkdir -p $@

# The test double of NVML that rdma-gpumap's CLI cases load (LD_LIBRARY_PATH=$$NVDIR, tests/nvml/):
# every function the kit looks up, and in old/ a driver without the newer two.  Plain flags, no
# sanitizer: it is loaded into the ASan build and under valgrind alike.
NVML_FAKE := $(BUILD)/nvml/libnvidia-ml.so.1 $(BUILD)/nvml/old/libnvidia-ml.so.1
$(BUILD)/nvml/libnvidia-ml.so.1: tests/nvml/fake-nvml.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) -O1 -g -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $<
$(BUILD)/nvml/old/libnvidia-ml.so.1: tests/nvml/fake-nvml.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) -DFAKE_NVML_OLD -O1 -g -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $<

clean:
	rm -rf build

# ---- install ----
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(SCHEMADIR)
	install -m 0755 $(TOOL_BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MANPAGES7) $(DESTDIR)$(MANDIR)/man7/
	for t in $(TOOLS); do \
		install -m 0644 completions/bash/$$t $(DESTDIR)$(BASHCOMPDIR)/$$t || exit 1; \
		install -m 0644 completions/zsh/_$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t || exit 1; \
		install -m 0644 schemas/$$t.schema.json $(DESTDIR)$(SCHEMADIR)/$$t.schema.json || exit 1; \
	done
	install -d $(DESTDIR)$(MONDIR)/tests $(DESTDIR)$(MONDIR)/grafana \
		$(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0644 $(MON_RULES) $(DESTDIR)$(MONDIR)/
	install -m 0644 $(MON_TESTS) $(DESTDIR)$(MONDIR)/tests/
	install -m 0644 $(MON_DASH) $(DESTDIR)$(MONDIR)/grafana/
	# The units run the tools where this install puts them.
	for u in $(MON_UNITS); do \
		sed 's|/usr/bin/rdma-|$(BINDIR)/rdma-|g' $$u > $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}.tmp && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}.tmp && \
		mv $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}.tmp $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/} || exit 1; \
	done

uninstall:
	for t in $(TOOLS); do \
		rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANDIR)/man1/$$t.1 \
		      $(DESTDIR)$(BASHCOMPDIR)/$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t $(DESTDIR)$(SCHEMADIR)/$$t.schema.json; \
	done
	rm -f $(MANPAGES7:man/%=$(DESTDIR)$(MANDIR)/man7/%)
	rm -f $(MON_UNITS:monitoring/systemd/%=$(DESTDIR)$(SYSTEMDUNITDIR)/%)
	rm -rf $(DESTDIR)$(MONDIR)
	-rmdir $(DESTDIR)$(SCHEMADIR) $(DESTDIR)$(dir $(SCHEMADIR)) 2> /dev/null

# ---- dependencies (Debian) ----
DEB_BUILD_DEPS := build-essential pkg-config clang libclang-rt-14-dev libibverbs-dev librdmacm-dev libnl-3-dev \
	libnl-route-3-dev libncurses-dev libjson-c-dev libibnetdisc-dev libibmad-dev libibumad-dev libsmartcols-dev
DEB_TEST_DEPS := libcmocka-dev mandoc groff-base cppcheck clang-tidy bash-completion zsh jq gojq tmux strace util-linux qemu-system-x86 busybox-static cpio kmod rdma-core \
	ibverbs-providers ibverbs-utils rdmacm-utils perftest iproute2 xz-utils zstd valgrind \
	dpkg-dev debhelper devscripts lintian python3-prometheus-client python3-yaml python3-jsonschema prometheus \
	vde2 slurm-wlm munge pdsh clustershell openssh-server openssh-client \
	ibsim-utils opensm infiniband-diags graphviz chromium python3-pil gdb
deps:
	@if [ "$$(id -u)" = 0 ]; then \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $(DEB_BUILD_DEPS) $(DEB_TEST_DEPS); \
	else \
		echo "run as root: apt-get install -y $(DEB_BUILD_DEPS) $(DEB_TEST_DEPS)"; exit 1; \
	fi

# ---- tests ----
RESULTS := build/results

check-build: all $(UNIT_BINS) $(NVML_FAKE)

check-unit: all $(UNIT_BINS)
	@tests/run-unit.sh $(BUILD) $(RESULTS)/unit$(if $(SAN),-san)

check-cli: all $(NVML_FAKE)
	@tests/cli/run.sh $(BUILD) $(RESULTS)/cli$(if $(SAN),-san)

# Screen tier: interactive views driven in tmux.
check-tui: all
	@tests/tui/run.sh $(BUILD) $(RESULTS)/tui$(if $(SAN),-san)

# The sanitizer pass of the unit and CLI tiers, in its own build tree.
check-san:
	@$(MAKE) --no-print-directory SAN=1 BUILD=build/san check-unit check-cli

# Valgrind memcheck over the CLI cases: no error, leak or fd left open (tests/valgrind/run.sh).
check-valgrind: all $(NVML_FAKE)
	@tests/valgrind/run.sh $(BUILD) $(RESULTS)/valgrind

vm-prepare:
	@tests/vm/prepare.sh build/vm

# The VM tier installs the Debian package (tests/vm/t-deb.sh): build it first.
check-vm: all bench-build vm-prepare deb
	@tests/vm/check.sh $(BUILD) $(RESULTS)/vm

# ---- Debian package ----
# make deb: dpkg-buildpackage -us -uc -b on a copy of the tree (tests/deb/build.sh);
# the .deb, -dbgsym .deb, .buildinfo and .changes land in build/.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB_FILE := build/rdma-diag_$(VERSION)_$(DEB_ARCH).deb
DEB_INPUTS := $(LIB_SRCS) $(HDRS) $(TOOL_SRCS) $(TOOL_LOCAL_SRCS) $(MANPAGES) $(MANPAGES7) $(wildcard completions/*/*) \
	$(MON_RULES) $(MON_TESTS) $(MON_DASH) $(MON_UNITS) \
	$(wildcard schemas/*.schema.json) \
	$(wildcard debian/* debian/*/*) $(wildcard examples/*) README.md Makefile VERSION

deb: $(DEB_FILE)
$(DEB_FILE): $(DEB_INPUTS)
	@tests/deb/build.sh build

# Package tier: build, lintian, contents, relations, hardening (tests/deb/check.sh).
check-deb:
	@tests/deb/check.sh $(RESULTS)/deb

# The monitoring tier: monitoring/'s alert rules (promtool check and test),
# every name they and the dashboard use against the tools' real output
# (fixture trees, a simulated fabric), the systemd units (systemd-analyze
# verify); tests/monitoring/run.sh.  promtool comes from the prometheus package.
check-monitoring: all
	@tests/monitoring/run.sh $(BUILD) $(RESULTS)/monitoring

# The fabric tier: rdma-fabric on simulated InfiniBand fabrics (ibsim + a real
# OpenSM, infiniband-diags as the oracle; tests/fabric/README.md).  No VM.
# With SAN=1 BUILD=build/san, rdma-fabric's ASan+UBSan build (run.sh puts
# ASan's runtime before umad2sim in the preload list).
check-fabric: all
	@tests/fabric/run.sh $(BUILD) $(RESULTS)/fabric$(if $(SAN),-san)

# The fleet scenarios alone: one boot of 3 VMs (FLEET_NODES=N for more).
check-fleet: all vm-prepare
	@tests/vm/check.sh $(BUILD) $(RESULTS)/fleet fleet

# ---- fuzzing (libFuzzer, clang, ASan+UBSan) ----
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= build/fuzz
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_LIB := $(FUZZ_BUILD)/librdmadiag.a

ifndef FUZZ_INNER
# The library again, instrumented for libFuzzer, in its own tree.
$(FUZZ_LIB): $(LIB_SRCS) $(HDRS)
	@$(MAKE) --no-print-directory FUZZ_INNER=1 CC=clang BUILD=$(FUZZ_BUILD) \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		$(FUZZ_LIB)
endif

FUZZ_LOCAL_OBJS := $(TOOL_LOCAL_SRCS:tools/%.c=$(FUZZ_BUILD)/cli/%.o)
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LOCAL_OBJS) $(FUZZ_LIB)
	$(call say,FUZZ,$@)clang -std=gnu11 -Wall -Wextra -Werror -Ilib -Itools $(PKG_CFLAGS) -O1 -g \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< $(FUZZ_LOCAL_OBJS) $(FUZZ_LIB) \
		$(PKG_LIBS) -lm -ldl

# fuzz_cli runs every tool's main() in-process: the tools compiled again with
# main renamed (<tool>_main), instrumented like the library; the fixtures by absolute path.
FUZZ_CLI_OBJS := $(TOOL_SRCS:tools/%.c=$(FUZZ_BUILD)/cli/%.o) $(TOOL_LOCAL_SRCS:tools/%.c=$(FUZZ_BUILD)/cli/%.o)
$(FUZZ_BUILD)/cli/%.o: tools/%.c $(HDRS)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)clang -std=gnu11 -Wall -Wextra -Werror -Ilib $(PKG_CFLAGS) -DRD_VERSION='"$(VERSION)"' \
		-Dmain=$(subst -,_,$(notdir $*))_main -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -c -o $@ $<
$(FUZZ_BUILD)/fuzz_cli: tests/fuzz/fuzz_cli.c $(FUZZ_CLI_OBJS) $(FUZZ_LIB)
	$(call say,FUZZ,$@)clang -std=gnu11 -Wall -Wextra -Werror -Ilib -Itools $(PKG_CFLAGS) -O1 -g \
		-DRD_FIXTURES='"$(CURDIR)/tests/fixtures"' -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Wl,--wrap=rd_ticker_wait,--wrap=rd_sysroot_is_live \
		-o $@ $< $(FUZZ_CLI_OBJS) $(FUZZ_LIB) $(PKG_LIBS) -lm -ldl

fuzz-build: $(FUZZ_BINS)

# make fuzz FUZZ_SECONDS=N: each target for N seconds, corpus in tests/fuzz/corpus/<target>.
fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(RESULTS)/fuzz

check-fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_BUILD) 15 $(RESULTS)/fuzz

lint-man:
	@tests/lint-man.sh $(MANPAGES) $(MANPAGES7)

# Plant known bugs one at a time (an exit status, a verdict word, a threshold,
# a JSON key, a refused path accepted ...) and show that the host tiers fail
# for each (tests/mutants/run.py; ~15 min).  Not part of make check.
check-mutants:
	@tests/mutants/run.py

# Static analysis with zero findings: cppcheck, clang-tidy (.clang-tidy), gcc -fanalyzer
# (a -Werror build in build/analyzer); see tests/lint/README.md.
lint:
	@tests/lint/run.sh $(RESULTS)/lint $(ALL_CFLAGS)

# The single-VM scenarios keep one core busy for about twenty minutes: they
# run in the background from the start, beside the host tiers, and their
# output is shown when the host tiers are done.  The pair and the fleet (two
# and three VMs: every core) run after, alone.  Every tier prints its time on
# its result line; the summary ends with a table of tier times (started: when
# the tier began, in seconds since the check began).
NPROC := $(shell nproc 2>/dev/null || echo 2)
TT = tests/tier-time.sh $(RESULTS)
check:
	@rm -rf $(RESULTS); mkdir -p $(RESULTS); date +%s > $(RESULTS)/.t0
	@$(MAKE) --no-print-directory -j$(NPROC) all bench-build
	@echo "== build tier (gcc, clang, install)"; $(TT) build tests/check-build.sh $(RESULTS)/build || true
	@$(MAKE) --no-print-directory vm-prepare deb
	@echo "== VM tier, one VM: started in the background; its output follows the host tiers"; \
	$(TT) vm-single tests/vm/check.sh $(BUILD) $(RESULTS)/vm-single single > $(BUILD)/vm-single.log 2>&1 & vmpid=$$!; \
	echo "== unit tier"; $(TT) unit $(MAKE) --no-print-directory check-unit || true; \
	echo "== CLI tier"; $(TT) cli $(MAKE) --no-print-directory check-cli || true; \
	echo "== screen tier (tmux)"; $(TT) tui $(MAKE) --no-print-directory check-tui || true; \
	echo "== sanitizer pass (ASan+UBSan): unit and CLI tiers"; \
	$(TT) unit-san $(MAKE) --no-print-directory -j$(NPROC) SAN=1 BUILD=build/san check-unit || true; \
	$(TT) cli-san $(MAKE) --no-print-directory SAN=1 BUILD=build/san check-cli || true; \
	echo "== valgrind (memcheck): CLI cases"; $(TT) valgrind $(MAKE) --no-print-directory check-valgrind || true; \
	echo "== static analysis (cppcheck, clang-tidy, gcc -fanalyzer)"; $(TT) lint $(MAKE) --no-print-directory lint || true; \
	echo "== man pages"; $(TT) man tests/lint-man.sh --results $(RESULTS)/man $(MANPAGES) $(MANPAGES7) || true; \
	echo "== shell completions"; $(TT) completion tests/completion.sh $(RESULTS)/completion || true; \
	echo "== monitoring (promtool, the names the tools export, systemd units)"; \
	$(TT) monitoring tests/monitoring/run.sh $(BUILD) $(RESULTS)/monitoring || true; \
	echo "== fuzzing (15 s a target)"; $(TT) fuzz $(MAKE) --no-print-directory -j$(NPROC) check-fuzz || true; \
	echo "== Debian package (build, lintian)"; $(TT) deb $(MAKE) --no-print-directory check-deb || true; \
	echo "== fabric tier (ibsim + OpenSM)"; $(TT) fabric $(MAKE) --no-print-directory check-fabric || true; \
	echo "== fabric tier, sanitizer build"; $(TT) fabric-san $(MAKE) --no-print-directory SAN=1 BUILD=build/san check-fabric || true; \
	echo "== VM tier, one VM (waiting for it)"; wait $$vmpid; cat $(BUILD)/vm-single.log
	@echo "== VM tier, two VMs"; $(TT) vm-pair tests/vm/check.sh $(BUILD) $(RESULTS)/vm-pair pair || true
	@echo "== VM tier, the fleet"; $(TT) vm-fleet tests/vm/check.sh $(BUILD) $(RESULTS)/vm-fleet fleet || true
	@echo $$(( $$(date +%s) - $$(cat $(RESULTS)/.t0) )) > $(RESULTS)/.wall
	@tests/summary.sh $(RESULTS)

# The edit-test loop: the build tier, the unit and the CLI tiers; no
# sanitizers, no VMs (a few minutes).  make check before a commit lands.
QUICK_RESULTS := build/results-quick
check-quick:
	@rm -rf $(QUICK_RESULTS); mkdir -p $(QUICK_RESULTS); date +%s > $(QUICK_RESULTS)/.t0
	@$(MAKE) --no-print-directory -j$(NPROC) all bench-build $(UNIT_BINS) $(NVML_FAKE)
	@echo "== build tier (gcc, clang, install)"; \
	tests/tier-time.sh $(QUICK_RESULTS) build tests/check-build.sh $(QUICK_RESULTS)/build || true
	@echo "== unit tier"; tests/tier-time.sh $(QUICK_RESULTS) unit tests/run-unit.sh $(BUILD) $(QUICK_RESULTS)/unit || true
	@echo "== CLI tier"; tests/tier-time.sh $(QUICK_RESULTS) cli tests/cli/run.sh $(BUILD) $(QUICK_RESULTS)/cli || true
	@echo "== monitoring tier"; \
	tests/tier-time.sh $(QUICK_RESULTS) monitoring tests/monitoring/run.sh $(BUILD) $(QUICK_RESULTS)/monitoring || true
	@echo $$(( $$(date +%s) - $$(cat $(QUICK_RESULTS)/.t0) )) > $(QUICK_RESULTS)/.wall
	@tests/summary.sh $(QUICK_RESULTS) build unit cli monitoring

demo: 
	@if [ "$$(id -u)" = 0 ]; then tests/vm/need-deps.sh || $(MAKE) --no-print-directory deps; fi
	@$(MAKE) --no-print-directory all vm-prepare
	@tests/vm/run.sh --pair --show --name demo --timeout 420 tests/vm/demo.sh tests/vm/demo-peer.sh
	@FABRIC_BUILD=$(CURDIR)/$(BUILD) tests/fabric/t-demo.sh

help:
	@echo "make [all]      build build/librdmadiag.a and the tools into build/"
	@echo "make check      all test tiers (unit, CLI, sanitizers, man lint, VM); a table of tier times, then 'N passed, N failed'"
	@echo "make check-quick  the edit-test loop: build, unit, CLI and monitoring tiers only (no sanitizers, no VMs)"
	@echo "make lint       static analysis: cppcheck, clang-tidy, gcc -fanalyzer (zero findings)"
	@echo "make deb        build the Debian package into build/ (dpkg-buildpackage -us -uc -b)"
	@echo "make demo       boot two soft-RoCE VMs and show every tool at work on the terminal, then rdma-fabric on a simulated fabric"
	@echo "make bench-build  build the bench's floors and timer (bench/*.c) into build/bench/"
	@echo "make check-mutants  plant 20+ known bugs one at a time; the suite must fail for each"
	@echo "make check-unit | check-cli | check-tui | check-san | check-valgrind | check-deb | check-vm | check-fleet | check-fabric | check-monitoring   one tier"
	@echo "make deps       install the Debian build and test dependencies (root)"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]   | make uninstall"
