# SPDX-License-Identifier: MIT
# mk/hardening.mk - fuzzing, sanitizer replay, the coverage gate and the
# portability runs. Included by the Makefile (include mk/*.mk); it also works
# alone: make -f mk/hardening.mk <target>. Keeps the default goal.
#
#   make fuzz            the libFuzzer targets fuzz/fuzz_*.c into fuzz/bin/
#                        (clang, -fsanitize=fuzzer,address,undefined)
#   make fuzz-replay     each target's standalone replay main, built with $(CC)
#                        and ASan + UBSan, over fuzz/corpus/<t>/ and fuzz/crashers/<t>/
#                        Both build with PCQ_CHECK_NEVER: a PCQ_NEVER / PCQ_ALWAYS
#                        claim (a check no input can reach) that an input breaks traps.
#   make fuzz-run        each target for FUZZ_SECONDS (default 60) seconds,
#                        FUZZ_JOBS (default 1) at a time; new inputs go to
#                        build/hardening/corpus/<t>/, crashes to build/hardening/artifacts/
#   make fuzz-merge      minimise what fuzz-run found into fuzz/corpus/<t>/
#   make coverage        clang source-based coverage of the tests + the corpus
#                        replay; prints line and branch coverage
#   make coverage-gate   coverage, then fails under COV_MIN_LINES (100) % lines
#                        or COV_MIN_BRANCHES (95) % branches of COV_GATE_FILES
#   make check-m32       the tests and the corpus replay as a 32-bit build
#   make check-s390x     the same on big-endian s390x (cross gcc + qemu-user)
#   make check-cxx-tests the library compiled as C++, linked with the C tests
#   make check-valgrind  the tests and the corpus replay under valgrind
#   make hardening-clean
# ci/portability.sh installs what the last four need and runs them.
# Each check-* and fuzz-replay prints `<name>: N passed, N failed` and appends
# that line to $(RESULTS) when the Makefile defines it (see CHECK_EXTRA there).

# ---- what to build (defaults for a standalone run) --------------------------
PCQ_LIB_SRCS          ?= pcq_codec.c pcq_calc.c
PCQ_TEST_SRCS         ?= $(wildcard test/test_*.c)
PCQ_TEST_SUPPORT_SRCS ?= $(filter-out $(PCQ_TEST_SRCS),$(wildcard test/*.c)) $(wildcard fuzz/fz_*.c) \
                         $(filter-out tools/pcqdump/pcqdump.c,$(wildcard tools/pcqdump/*.c))
PCQ_INCLUDES          ?= -I. -Itools/pcqdump -Itest -Ifuzz
PCQ_HARDEN_WARN       ?= -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wcast-qual -Wcast-align \
                         -Wstrict-prototypes -Wundef -Wconversion
PCQ_HARDEN_CXXWARN    ?= -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Wcast-qual -Wcast-align \
                         -Wundef -Wconversion
PCQ_HARDEN_HDRS       := pcq_codec.h $(wildcard fuzz/*.h test/*.h tools/pcqdump/*.h)

# Targets are fuzz/fuzz_<name>.c; what they share is fuzz/fz_*.c (fuzz/fz_internal.h).
FUZZ_TARGETS  ?= $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_SUPPORT  := $(wildcard fuzz/fz_*.c)
FUZZ_CC       ?= clang
FUZZ_CFLAGS   ?= -g -O1 -fno-omit-frame-pointer -DPCQ_CHECK_NEVER
FUZZ_SAN      ?= -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS  ?= 60
FUZZ_JOBS     ?= 1
FUZZ_MAX_LEN  ?= 4096
FUZZ_FLAGS    ?= -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_BIN      ?= fuzz/bin
HARDEN_OUT    ?= build/hardening
HARDEN_WERROR ?= -Werror
FUZZ_RESULTS  ?= $(RESULTS)

REPLAY_CC     ?= $(CC)
REPLAY_FLAGS  ?= -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                 -fno-sanitize-recover=all -DPCQ_CHECK_NEVER

COV_CC        ?= clang
COV_FLAGS     ?= -g -O0 -fprofile-instr-generate -fcoverage-mapping -DPCQ_COVERAGE_TEST
COV_GATE_FILES ?= pcq_codec.c pcq_calc.c
COV_MIN_LINES ?= 100
COV_MIN_BRANCHES ?= 95
LLVM_PROFDATA ?= $(firstword $(shell command -v llvm-profdata 2>/dev/null) \
                  $(wildcard /usr/lib/llvm-*/bin/llvm-profdata) llvm-profdata)
LLVM_COV      ?= $(firstword $(shell command -v llvm-cov 2>/dev/null) \
                  $(wildcard /usr/lib/llvm-*/bin/llvm-cov) llvm-cov)

M32_CC        ?= $(CC)
# Some kernels (no IA32 emulation, gVisor) refuse i386 programs with "Exec
# format error"; the m32 tests then run under qemu-user, decided at run time.
QEMU_I386     ?= $(firstword $(shell command -v qemu-i386-static qemu-i386 2>/dev/null) qemu-i386-static)
S390X_CC      ?= s390x-linux-gnu-gcc
QEMU_S390X    ?= $(firstword $(shell command -v qemu-s390x-static qemu-s390x 2>/dev/null) \
                  qemu-s390x-static)
HARDEN_CXX    ?= $(if $(CXX),$(CXX),c++)
VALGRIND      ?= valgrind
VALGRIND_FLAGS ?= -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect

ifeq ($(V),1)
HQ   :=
HSAY := @true
else
HQ   := @
HSAY := @printf '  %-12s %s\n'
endif

# ---- one build variant: library objects, other objects, tests, replays -----
# $(call pcq_harden_variant,NAME,CC,CFLAGS,LIB-COMPILE-COMMAND,LINKER)
# LIB-COMPILE-COMMAND compiles $< to $@ (so C++ or -Werror can differ).
define pcq_harden_variant
HV_$(1) := $(HARDEN_OUT)/$(1)
HV_$(1)_LIB := $$(PCQ_LIB_SRCS:%.c=$(HARDEN_OUT)/$(1)/lib/%.o)
HV_$(1)_SUP := $$(PCQ_TEST_SUPPORT_SRCS:%.c=$(HARDEN_OUT)/$(1)/obj/%.o)
HV_$(1)_TESTS := $$(PCQ_TEST_SRCS:test/%.c=$(HARDEN_OUT)/$(1)/%)
HV_$(1)_REPLAYS := $$(FUZZ_TARGETS:%=$(HARDEN_OUT)/$(1)/fuzz_%)

$(HARDEN_OUT)/$(1)/lib/%.o: %.c $(PCQ_HARDEN_HDRS)
	@mkdir -p $$(@D)
	$$(HSAY) "CC [$(1)]" $$<
	$(HQ)$(4)

$(HARDEN_OUT)/$(1)/obj/%.o: %.c $(PCQ_HARDEN_HDRS)
	@mkdir -p $$(@D)
	$$(HSAY) "CC [$(1)]" $$<
	$(HQ)$(2) $(3) $(PCQ_INCLUDES) -c $$< -o $$@

$(HARDEN_OUT)/$(1)/test_%: $(HARDEN_OUT)/$(1)/obj/test/test_%.o $$(HV_$(1)_SUP) $$(HV_$(1)_LIB)
	$$(HSAY) "LD [$(1)]" $$@
	$(HQ)$(5) $(3) $$^ -lm -o $$@

$(HARDEN_OUT)/$(1)/fuzz_%: $(HARDEN_OUT)/$(1)/obj/fuzz/fuzz_%.o \
    $$(FUZZ_SUPPORT:%.c=$(HARDEN_OUT)/$(1)/obj/%.o) $(HARDEN_OUT)/$(1)/obj/fuzz/replay_main.o \
    $$(HV_$(1)_LIB)
	$$(HSAY) "LD [$(1)]" $$@
	$(HQ)$(5) $(3) $$^ -lm -o $$@

# Objects are kept between runs (make would delete them as intermediates).
.SECONDARY: $$(HV_$(1)_LIB) $$(HV_$(1)_SUP) \
    $$(PCQ_TEST_SRCS:%.c=$(HARDEN_OUT)/$(1)/obj/%.o) \
    $$(patsubst %,$(HARDEN_OUT)/$(1)/obj/fuzz/fuzz_%.o,$$(FUZZ_TARGETS)) \
    $$(FUZZ_SUPPORT:%.c=$(HARDEN_OUT)/$(1)/obj/%.o) \
    $(HARDEN_OUT)/$(1)/obj/fuzz/replay_main.o
endef

# replay: $(CC) with ASan + UBSan (gcc in make check; clang's libFuzzer build is `fuzz`)
$(eval $(call pcq_harden_variant,replay,$(REPLAY_CC),$(REPLAY_FLAGS),\
  $(REPLAY_CC) $(REPLAY_FLAGS) -c $$< -o $$@,$(REPLAY_CC)))
# cov: clang source-based coverage. covlim: the same with the compile-time caps
# lowered (COV_KNOBS), so the corpus reaches the PCQ_ERR_LIMIT paths with small
# inputs; its replays run too, and the profiles are merged.
COV_KNOBS ?= -DPCQ_MAX_COUNTERS=16 -DPCQ_MAX_INSTANCES=16 -DPCQ_PAIR_CHECK_MAX=8
$(eval $(call pcq_harden_variant,cov,$(COV_CC),$(COV_FLAGS),\
  $(COV_CC) $(COV_FLAGS) -c $$< -o $$@,$(COV_CC)))
$(eval $(call pcq_harden_variant,covlim,$(COV_CC),$(COV_FLAGS) $(COV_KNOBS),\
  $(COV_CC) $(COV_FLAGS) $(COV_KNOBS) -c $$< -o $$@,$(COV_CC)))
# m32: 32-bit size_t and pointers; the library with the project's warnings, fatal.
# gcc-N-multilib (unlike gcc-multilib, it does not conflict with the s390x cross
# compiler) lacks the /usr/include/asm link: a private one stands in for it.
M32_SHIM  := $(HARDEN_OUT)/m32/include
M32_FLAGS ?= -m32 -g -O1 -isystem $(M32_SHIM)
$(eval $(call pcq_harden_variant,m32,$(M32_CC),$(M32_FLAGS),\
  $(M32_CC) $(M32_FLAGS) $(PCQ_HARDEN_WARN) $(HARDEN_WERROR) -c $$< -o $$@,$(M32_CC)))
$(HV_m32_LIB) $(HV_m32_SUP) $(PCQ_TEST_SRCS:%.c=$(HV_m32)/obj/%.o) \
  $(patsubst %,$(HV_m32)/obj/fuzz/fuzz_%.o,$(FUZZ_TARGETS)) $(FUZZ_SUPPORT:%.c=$(HV_m32)/obj/%.o) \
  $(HV_m32)/obj/fuzz/replay_main.o: | $(M32_SHIM)/asm
$(M32_SHIM)/asm:
	@mkdir -p $(@D)
	@if [ -d /usr/include/asm ]; then mkdir -p $@; \
	 else ln -sfn "$$(ls -d /usr/include/*-linux-gnu/asm | grep -E 'x86_64|i386' | head -n 1)" $@; fi
# s390x: big-endian, static so qemu-user needs no sysroot
$(eval $(call pcq_harden_variant,s390x,$(S390X_CC),-g -O1 -static,\
  $(S390X_CC) -g -O1 $(PCQ_HARDEN_WARN) $(HARDEN_WERROR) -c $$< -o $$@,$(S390X_CC)))
# cxx: the library compiled as C++, everything else as C, linked by the C++ compiler
$(eval $(call pcq_harden_variant,cxx,$(CC),-g -O1,\
  $(HARDEN_CXX) -x c++ $(PCQ_HARDEN_CXXWARN) $(HARDEN_WERROR) -g -O1 -c $$< -o $$@,$(HARDEN_CXX)))
# vg: plain build for valgrind
$(eval $(call pcq_harden_variant,vg,$(CC),-g -O1,\
  $(CC) -g -O1 $(PCQ_HARDEN_WARN) $(HARDEN_WERROR) -c $$< -o $$@,$(CC)))

HARDEN_SUITE := sh ci/run-suite.sh

.PHONY: fuzz fuzz-replay fuzz-replay-build fuzz-run fuzz-merge coverage coverage-gate check-m32 check-s390x \
        check-cxx-tests check-valgrind hardening-clean

# ---- libFuzzer ---------------------------------------------------------------
FUZZ_COMMON := $(FUZZ_SUPPORT) $(PCQ_LIB_SRCS)
FUZZ_EXES   := $(FUZZ_TARGETS:%=$(FUZZ_BIN)/fuzz_%)

$(FUZZ_BIN)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_COMMON) $(PCQ_HARDEN_HDRS)
	@mkdir -p $(@D)
	$(HSAY) "FUZZ" $@
	$(HQ)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) $(PCQ_INCLUDES) $< $(FUZZ_COMMON) -lm -o $@

fuzz: $(FUZZ_EXES)

fuzz-replay: $(HV_replay_REPLAYS)
	@$(HARDEN_SUITE) fuzz-replay --results "$(FUZZ_RESULTS)" --replay $(HV_replay)

# Only builds what fuzz-replay runs, which the portability runs compare with
# (.ci/run builds it before its two lanes start, so that no two makes build it).
fuzz-replay-build: $(HV_replay_REPLAYS)

# Each target for FUZZ_SECONDS, FUZZ_JOBS at a time (ci/fuzz-one.sh); the first
# line names the commit fuzzed, so a long run's log says what it covered.
fuzz-run: $(FUZZ_EXES)
	@echo "fuzz-run: $(words $(FUZZ_TARGETS)) targets, $(FUZZ_SECONDS) s each, $(FUZZ_JOBS) at a time, on $$(git describe --always --dirty 2>/dev/null || echo 'no git')"
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_JOBS) -I{} \
	  sh ci/fuzz-one.sh {} $(FUZZ_SECONDS) $(FUZZ_BIN) $(HARDEN_OUT) $(FUZZ_MAX_LEN) $(FUZZ_FLAGS); \
	if [ $$? != 0 ]; then echo "fuzz-run: findings (above); inputs in $(HARDEN_OUT)/artifacts/"; exit 1; fi; \
	echo "fuzz-run: $(words $(FUZZ_TARGETS)) targets, $(FUZZ_SECONDS) s each, no finding"

# Adds to fuzz/corpus/<t>/ only the inputs that bring new coverage.
fuzz-merge: $(FUZZ_EXES)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(HARDEN_OUT)/corpus/$$t fuzz/corpus/$$t; \
	  $(FUZZ_BIN)/fuzz_$$t -merge=1 -max_len=$(FUZZ_MAX_LEN) fuzz/corpus/$$t \
	    $(HARDEN_OUT)/corpus/$$t 2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new files' | sed "s/^/  $$t: /"; \
	done

# ---- coverage ------------------------------------------------------------------
COV_PROF := $(HV_cov)/prof
COV_BINS := $(HV_cov_TESTS) $(HV_cov_REPLAYS) $(HV_covlim_REPLAYS)
coverage: $(COV_BINS)
	@rm -rf $(COV_PROF) && mkdir -p $(COV_PROF)
	@LLVM_PROFILE_FILE='$(COV_PROF)/%p-%m.profraw' $(HARDEN_SUITE) coverage-run \
	  --quiet $(HV_cov_TESTS) --replay $(HV_cov) || true
	@LLVM_PROFILE_FILE='$(COV_PROF)/%p-%m.profraw' $(HARDEN_SUITE) coverage-run-caps \
	  --quiet --replay $(HV_covlim) || true
	@$(LLVM_PROFDATA) merge -sparse $(COV_PROF)/*.profraw -o $(HV_cov)/pcq.profdata
	@$(LLVM_COV) report -instr-profile=$(HV_cov)/pcq.profdata \
	  $(firstword $(COV_BINS)) $(addprefix -object ,$(wordlist 2,1000,$(COV_BINS))) \
	  $(PCQ_LIB_SRCS) > $(HV_cov)/report.txt
	@for f in $(PCQ_LIB_SRCS); do \
	  $(LLVM_COV) show -instr-profile=$(HV_cov)/pcq.profdata -show-line-counts \
	    -show-branches=count -use-color=false $(firstword $(COV_BINS)) \
	    $(addprefix -object ,$(wordlist 2,1000,$(COV_BINS))) $$f > $(HV_cov)/show-$$(basename $$f).txt; \
	done
	@cat $(HV_cov)/report.txt
	@sh ci/coverage-gate.sh --report-only $(HV_cov) $(COV_GATE_FILES)
	@echo "coverage: annotated sources in $(HV_cov)/show-<file>.txt; what was never run:" \
	  "sh ci/coverage-gate.sh --uncovered $(HV_cov) $(COV_GATE_FILES)"

coverage-gate: coverage
	@COV_MIN_LINES=$(COV_MIN_LINES) COV_MIN_BRANCHES=$(COV_MIN_BRANCHES) \
	  sh ci/coverage-gate.sh $(HV_cov) $(COV_GATE_FILES)

# ---- portability ---------------------------------------------------------------
check-m32: $(HV_m32_TESTS) $(HV_m32_REPLAYS) $(HV_replay_REPLAYS)
	@printf 'int main(void) { return 0; }\n' > $(HV_m32)/probe.c && \
	  $(M32_CC) -m32 $(HV_m32)/probe.c -o $(HV_m32)/probe && \
	  if $(HV_m32)/probe 2>/dev/null; then runner=; else runner="$(QEMU_I386)"; \
	    echo "check-m32: this kernel does not run i386 programs; running them under $$runner"; fi; \
	  $(HARDEN_SUITE) check-m32 --results "$(FUZZ_RESULTS)" $${runner:+--runner "$$runner"} \
	    $(HV_m32_TESTS) --replay $(HV_m32) --compare $(HV_replay)

check-s390x: $(HV_s390x_TESTS) $(HV_s390x_REPLAYS) $(HV_replay_REPLAYS)
	@command -v $(QEMU_S390X) >/dev/null 2>&1 || \
	  { echo "check-s390x: $(QEMU_S390X) not found (bash ci/portability.sh installs it)"; exit 1; }
	@$(HARDEN_SUITE) check-s390x --results "$(FUZZ_RESULTS)" --runner "$(QEMU_S390X)" \
	  $(HV_s390x_TESTS) --replay $(HV_s390x) --compare $(HV_replay)

check-cxx-tests: $(HV_cxx_TESTS) $(HV_cxx_REPLAYS) $(HV_replay_REPLAYS)
	@$(HARDEN_SUITE) check-cxx-tests --results "$(FUZZ_RESULTS)" $(HV_cxx_TESTS) --replay $(HV_cxx) --compare $(HV_replay)

check-valgrind: $(HV_vg_TESTS) $(HV_vg_REPLAYS) $(HV_replay_REPLAYS)
	@$(HARDEN_SUITE) check-valgrind --results "$(FUZZ_RESULTS)" \
	  --runner "$(VALGRIND) $(VALGRIND_FLAGS)" $(HV_vg_TESTS) --replay $(HV_vg) --compare $(HV_replay)

hardening-clean:
	rm -rf $(HARDEN_OUT) $(FUZZ_BIN)

# make check replays every corpus and every past crasher (ASan + UBSan, $(CC)).
CHECK_EXTRA += fuzz-replay
