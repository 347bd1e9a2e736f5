# SPDX-License-Identifier: MIT
# pcq - GNU Makefile
#
#   make              build libpcq.a and ./pcqdump, then decode a bundled vector
#   make check        every test/test_*.c, plain and under ASan + UBSan, with $(CC)
#                     and with clang when installed; the library also as C++
#   make install      PREFIX=/usr/local, DESTDIR= ; library, header, pcqdump, pcq.pc
#   make uninstall, make clean
#   V=1               show the full commands
#
# Layout: objects go to build/obj, tests to build/tests, libpcq.a and pcqdump
# to the top; a check build (VARIANT=gcc-asan, ...) puts all of it in build/<variant>.

VERSION := $(shell sed -n 's/^\#define PCQ_VERSION_STRING "\(.*\)"/\1/p' pcq_codec.h)

# ---------------------------------------------------------------------------
# Tools and flags
# ---------------------------------------------------------------------------
CC      ?= cc
CXX     ?= c++
AR      ?= ar
INSTALL ?= install
CFLAGS  ?= -O2 -g
LDLIBS  += -lm

# The warning set of docs (ANCHORS): clean on gcc and clang, fatal for the library.
WARN     := -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wcast-qual -Wcast-align \
            -Wstrict-prototypes -Wundef -Wconversion
CXXWARN  := -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Wcast-qual -Wcast-align -Wundef -Wconversion
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# A check build sets VARIANT (e.g. gcc-asan) and SAN=1 for the sanitizers.
VARIANT ?=
SAN     ?= 0
ifeq ($(VARIANT),)
OBJ := build/obj
OUT := .
TESTDIR := build/tests
else
OBJ := build/$(VARIANT)/obj
OUT := build/$(VARIANT)
TESTDIR := build/$(VARIANT)/tests
endif
ifeq ($(SAN),1)
XFLAGS := $(SANFLAGS) -O1 -g
else
XFLAGS :=
endif

ifeq ($(V),1)
Q   :=
SAY := @true
else
Q   := @
SAY := @printf '  %-7s %s\n'
endif

# ---------------------------------------------------------------------------
# Sources: the codec (decoders and encoder) and the optional evaluator.
# ---------------------------------------------------------------------------
LIB_SRCS    := pcq_codec.c pcq_calc.c
TOOL_MAIN   := tools/pcqdump/pcqdump.c
TOOL_SRCS   := $(filter-out $(TOOL_MAIN),$(wildcard tools/pcqdump/*.c))
TEST_SRCS   := $(wildcard test/test_*.c)
TESTLIB_SRCS := $(filter-out $(TEST_SRCS),$(wildcard test/*.c)) $(wildcard fuzz/fz_*.c)

LIB      := $(OUT)/libpcq.a
TOOLLIB  := $(OBJ)/libpcqtool.a
PCQDUMP  := $(OUT)/pcqdump
TESTS    := $(TEST_SRCS:test/%.c=$(TESTDIR)/%)

LIB_OBJS     := $(LIB_SRCS:%.c=$(OBJ)/%.o)
TOOL_OBJS    := $(TOOL_SRCS:%.c=$(OBJ)/%.o)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(OBJ)/%.o)
ALL_OBJS     := $(LIB_OBJS) $(TOOL_OBJS) $(TESTLIB_OBJS) \
                $(TOOL_MAIN:%.c=$(OBJ)/%.o) $(TEST_SRCS:%.c=$(OBJ)/%.o)

INCLUDES := -I. -Itools/pcqdump -Itest -Ifuzz

# The demo: a realistic data buffer when the vectors have one, else any good one.
DEMO_PREFERRED := vectors/data/processor-information.hex
DEMO ?= $(firstword $(wildcard $(DEMO_PREFERRED)) \
                    $(patsubst %.json,%.hex,$(wildcard vectors/data/*.json)))

.PHONY: all build demo check check-variant check-cli check-cxx check-knobs check-callers check-tables check-format check-spdx install uninstall clean
.DEFAULT_GOAL := all

all: build demo

build: $(LIB) $(PCQDUMP)

demo: build
ifeq ($(DEMO),)
	@echo "demo: no decodable vector under vectors/data yet; try ./pcqdump --help"
else
	@echo "$(PCQDUMP) --hex --kind data $(DEMO)"
	@$(PCQDUMP) --hex --kind data $(DEMO)
endif

# ---------------------------------------------------------------------------
# Compiling. The library is compiled with -Werror; tools and tests are not.
# ---------------------------------------------------------------------------
$(LIB_OBJS): $(OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(SAY) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(WARN) -Werror $(CFLAGS) $(XFLAGS) -MMD -MP -c $< -o $@

$(filter-out $(LIB_OBJS),$(ALL_OBJS)): $(OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(SAY) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(INCLUDES) $(WARN) $(CFLAGS) $(XFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(SAY) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(TOOLLIB): $(TOOL_OBJS)
	@mkdir -p $(@D)
	$(SAY) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(PCQDUMP): $(OBJ)/$(TOOL_MAIN:.c=.o) $(TOOLLIB) $(LIB)
	@mkdir -p $(@D)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) $(XFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Each test links the shared test helpers, the pcqdump helpers and the library.
$(TESTDIR)/%: $(OBJ)/test/%.o $(TESTLIB_OBJS) $(TOOLLIB) $(LIB)
	@mkdir -p $(@D)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) $(XFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

-include $(ALL_OBJS:.o=.d)

# ---------------------------------------------------------------------------
# make check
#
# Each build variant (compiler x plain/sanitized) builds in its own directory
# and runs every test binary from the top of the tree. A test prints
# `N passed, N failed` last; a test that dies without that line, or does not
# build, counts as one failure (and the others still run). Each result goes to
# build/check-results.txt, summed at the end.
# ---------------------------------------------------------------------------
CLANG       ?= $(shell command -v clang 2>/dev/null)
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -qi clang && echo yes)
CHECK_CCS   ?= $(CC) $(if $(CC_IS_CLANG),,$(CLANG))
RESULTS     := build/check-results.txt
export ASAN_OPTIONS  ?= detect_leaks=1:strict_string_checks=1
export UBSAN_OPTIONS ?= print_stacktrace=1

check:
	@mkdir -p build && : > $(RESULTS)
	@for cc in $(CHECK_CCS); do \
	  name=$$(basename "$$cc"); \
	  for san in 0 1; do \
	    v=$$name; [ $$san = 0 ] || v=$$name-asan; \
	    echo "== check: $$v"; \
	    $(MAKE) --no-print-directory check-variant CC="$$cc" VARIANT=$$v SAN=$$san \
	      || echo "$$v (build): 0 passed, 1 failed" >> $(RESULTS); \
	  done; \
	done
	@$(MAKE) --no-print-directory check-cxx check-knobs check-callers check-tables check-ahead check-format \
	  check-spdx $(CHECK_EXTRA)
	@echo "== summary"
	@awk '{ print "  " $$0 }' $(RESULTS)
	@awk '{ p += $$(NF-3); f += $$(NF-1) } \
	     END { printf "check: %d passed, %d failed\n", p, f; exit (f > 0 || NR == 0) }' $(RESULTS)

check-variant: $(LIB)
	@$(MAKE) --no-print-directory check-cli \
	  || echo "$(VARIANT) pcqdump (build): 0 passed, 1 failed" >> $(RESULTS)
	@for t in $(TESTS); do \
	  if ! $(MAKE) --no-print-directory $$t; then \
	    echo "FAIL: $$t does not build"; \
	    echo "$(VARIANT) $$(basename $$t) (build): 0 passed, 1 failed" >> $(RESULTS); \
	    continue; \
	  fi; \
	  log=$(OBJ)/$$(basename $$t).log; \
	  $$t > $$log 2>&1; rc=$$?; \
	  cat $$log; \
	  line=$$(tail -n 1 $$log); \
	  if ! echo "$$line" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$$'; then \
	    echo "FAIL: $$t died without a summary line (exit status $$rc)"; \
	    line="0 passed, 1 failed"; \
	  elif [ $$rc != 0 ] && echo "$$line" | grep -q ' 0 failed$$'; then \
	    echo "FAIL: $$t exited with status $$rc"; \
	    line=$$(echo "$$line" | sed 's/ 0 failed$$/ 1 failed/'); \
	  fi; \
	  echo "$(VARIANT) $$(basename $$t): $$line" >> $(RESULTS); \
	done

# pcqdump on every vector, as a user runs it: a good vector decodes (exit 0,
# output on stdout; exit 3 under --strict when it has a .diag), a malformed one
# exits 1 with a message on stderr, having printed what it read and then the
# error (the tree's "** malformed" line, the JSON's "error" member).
CLI_OUT := $(OBJ)/cli
check-cli: $(PCQDUMP)
	@pass=0; fail=0; \
	for hex in $(wildcard vectors/*/*.hex); do \
	  kind=$$(basename $$(dirname $$hex)); base=$${hex%.hex}; \
	  for mode in tree json strict; do \
	    case $$mode in tree) opt=;; json) opt=--json;; strict) opt="--strict --json";; esac; \
	    if [ -f $$base.err ]; then want=1; \
	    elif [ $$mode = strict ] && [ -f $$base.diag ]; then want=3; \
	    else want=0; fi; \
	    $(PCQDUMP) $$opt --hex --kind $$kind $$hex > $(CLI_OUT).out 2> $(CLI_OUT).err; rc=$$?; \
	    why=; \
	    if [ $$rc != $$want ]; then why="exit status $$rc, expected $$want"; \
	    elif [ $$want = 0 ] && [ ! -s $(CLI_OUT).out ]; then why="printed nothing"; \
	    elif [ $$want != 0 ] && [ ! -s $(CLI_OUT).err ]; then why="no message on stderr"; \
	    elif [ $$want = 1 ] && ! grep -q '"error": {"code": \|\*\* malformed: ' $(CLI_OUT).out; then \
	      why="did not show the error after what it read"; \
	    fi; \
	    if [ -z "$$why" ]; then pass=$$((pass + 1)); else \
	      fail=$$((fail + 1)); \
	      echo "FAIL: $(PCQDUMP) $$opt --hex --kind $$kind $$hex: $$why"; \
	      head -n 3 $(CLI_OUT).err | sed 's/^/    /'; \
	    fi; \
	  done; \
	done; \
	info=vectors/counterset-info/small-raw-fraction-pair.hex; \
	for t in "cook-2x3 vectors/data/counterset-2x3.hex vectors/data/counterset-2x3.hex" \
	         "cook-path-chars vectors/data/instance-name-path-chars.hex" \
	         "cook-names-spec --names vectors/strings/spec-counter-names.hex vectors/data/counterset-2x3.hex vectors/data/counterset-2x3.hex" \
	         "cook-names-win32 --names vectors/strings/shared-text.hex vectors/data/counterset-2x3.hex vectors/data/counterset-2x3.hex"; do \
	  set -- $$t; want=test/cli/$$1.csv; shift; \
	  if $(PCQDUMP) --cook --hex --csv --info $$info "$$@" > $(CLI_OUT).out 2> $(CLI_OUT).err && \
	     cmp -s $(CLI_OUT).out $$want; then pass=$$((pass + 1)); else \
	    fail=$$((fail + 1)); echo "FAIL: $(PCQDUMP) --cook --hex --csv --info $$info $$*: not $$want"; \
	    diff $$want $(CLI_OUT).out | head -n 5 | sed 's/^/    /'; head -n 3 $(CLI_OUT).err | sed 's/^/    /'; \
	  fi; \
	done; \
	echo "pcqdump: $$pass passed, $$fail failed"; \
	echo "$(VARIANT) pcqdump: $$pass passed, $$fail failed" >> $(RESULTS); \
	sh test/cli/hostile.sh $(PCQDUMP) > $(CLI_OUT).hostile 2>&1; \
	line=$$(tail -n 1 $(CLI_OUT).hostile); \
	echo "$$line" | grep -Eq '^hostile: [0-9]+ passed, [0-9]+ failed$$' || line="hostile: 0 passed, 1 failed"; \
	grep -v '^hostile:' $(CLI_OUT).hostile; echo "$$line"; \
	echo "$(VARIANT) $$line" >> $(RESULTS)

# The library compiles as C++ (with every C++ compiler present).
CHECK_CXXS ?= $(CXX) $(if $(CLANG),$(shell command -v clang++ 2>/dev/null))
check-cxx:
	@for cxx in $(CHECK_CXXS); do \
	  echo "== check: the library as C++ with $$cxx"; \
	  if $$cxx -x c++ $(CXXWARN) -Werror -fsyntax-only $(LIB_SRCS); then \
	    echo "$$(basename $$cxx) (as C++): 1 passed, 0 failed" >> $(RESULTS); \
	  else \
	    echo "$$(basename $$cxx) (as C++): 0 passed, 1 failed" >> $(RESULTS); \
	  fi; \
	done

# The library compiles with each knob of pcq_codec.h set.
KNOBS ?= -DPCQ_NO_ENCODER -DPCQ_NO_CALC -DPCQ_MAX_COUNTERS=1 -DPCQ_MAX_INSTANCES=0x7fffffff \
         -DPCQ_PAIR_CHECK_MAX=1 -DPCQ_API=extern -DPCQ_NO_SIMD -DPCQ_AHEAD_FROM=-1 -DPCQ_AHEAD=1
check-knobs:
	@for knob in $(KNOBS); do \
	  echo "== check: the library with $$knob"; \
	  if $(CC) $(WARN) -Werror $$knob -fsyntax-only $(LIB_SRCS); then \
	    echo "$$(basename $(CC)) ($$knob): 1 passed, 0 failed" >> $(RESULTS); \
	  else \
	    echo "$$(basename $(CC)) ($$knob): 0 passed, 1 failed" >> $(RESULTS); \
	  fi; \
	done

# The header's inline steps compile warning-free in a caller's code, at
# -O2, where gcc's -Warray-bounds follows a caller's short array into them
# (a path its length never takes: 82089ae): every test and fuzz source is a
# caller, with each compiler.
CALLER_SRCS ?= $(TEST_SRCS) $(TESTLIB_SRCS) $(wildcard fuzz/fuzz_*.c)
check-callers:
	@for cc in $(CHECK_CCS); do \
	  echo "== check: the header in callers' code, -O2 -Werror, with $$cc"; \
	  n=0; for f in $(CALLER_SRCS); do \
	    $$cc -std=c99 -Wall -Wextra -Wpedantic -O2 -Werror -I. -Ifuzz -Itest -Itools/pcqdump \
	      -c $$f -o /dev/null || n=$$((n + 1)); \
	  done; \
	  echo "$$(basename $$cc) (callers, -O2 -Werror): $$(($(words $(CALLER_SRCS)) - n)) passed, $$n failed" \
	    >> $(RESULTS); \
	done

# The walk's tests with a small set-wide table (PCQ_PAIR_CHECK_MAX): 1 (a
# NUL map of one word and no summary) and 33 (one summary word), under the
# sanitizers: every geometry of the string blocks' NUL map (D11).
TABLES ?= 1 33
check-tables:
	@for n in $(TABLES); do \
	  echo "== check: test_walk with PCQ_PAIR_CHECK_MAX=$$n"; \
	  v=table$$n; log=build/$$v/test_walk.log; \
	  if $(MAKE) --no-print-directory VARIANT=$$v SAN=1 CFLAGS="-O1 -g -DPCQ_PAIR_CHECK_MAX=$$n" \
	       build/$$v/tests/test_walk > /dev/null && build/$$v/tests/test_walk > $$log 2>&1; then \
	    line=$$(tail -n 1 $$log); \
	  else \
	    tail -n 5 $$log 2>/dev/null; line="0 passed, 1 failed"; \
	  fi; \
	  echo "$$line"; \
	  echo "$$(basename $(CC)) test_walk (PCQ_PAIR_CHECK_MAX=$$n): $$line" >> $(RESULTS); \
	done

# Every test with reading ahead on for every input (PCQ_AHEAD_FROM=1, 256
# bytes ahead), under the sanitizers, each prefetch made a read
# (PCQ_AHEAD_CHECK): an address past the input is an ASan error (D19).
check-ahead:
	@echo "== check: every test reading ahead (PCQ_AHEAD_FROM=1, PCQ_AHEAD=256, PCQ_AHEAD_CHECK)"
	@$(MAKE) --no-print-directory check-variant VARIANT=ahead SAN=1 \
	  CFLAGS="-O1 -g -DPCQ_AHEAD_FROM=1 -DPCQ_AHEAD=256 -DPCQ_AHEAD_CHECK" \
	  || echo "ahead (build): 0 passed, 1 failed" >> $(RESULTS)

# The C sources against .clang-format (with clang-format 14; skipped, and
# said so, without it).
check-format:
	@echo "== check: format"
	@mkdir -p $(OBJ); sh ci/check-format.sh > $(OBJ)/format.log 2>&1; cat $(OBJ)/format.log; \
	  echo "format: $$(tail -n 1 $(OBJ)/format.log | sed 's/^check-format: \([0-9]* passed, [0-9]* failed\).*/\1/')" >> $(RESULTS)

# ---------------------------------------------------------------------------
# The shared library: make shared (make install builds it too; make does not).
# The same sources as libpcq.a, compiled -fPIC -fvisibility=hidden with
# PCQ_BUILD_SHARED, so that it exports only the functions declared PCQ_API in
# pcq_codec.h. ELF platforms (GNU ld, gold, lld); SHARED=0 leaves it out.
#
# Soname policy (docs/packaging.md): the soname names the ABI. From 1.0 on it
# is libpcq.so.<major>; before 1.0 any minor release may change the ABI (the
# structs the caller allocates are part of it), so it is libpcq.so.0.<minor>:
#   libpcq.so.0.2.0            the library (PCQ_VERSION_STRING)
#   libpcq.so.0.2 -> it        the soname, what programs load
#   libpcq.so -> libpcq.so.0.2 for -lpcq at link time
# The CMake and Meson builds name and version it the same way.
# ---------------------------------------------------------------------------
VERSION_MAJOR := $(shell sed -n 's/^\#define PCQ_VERSION_MAJOR  *\([0-9][0-9]*\).*/\1/p' pcq_codec.h)
VERSION_MINOR := $(shell sed -n 's/^\#define PCQ_VERSION_MINOR  *\([0-9][0-9]*\).*/\1/p' pcq_codec.h)
SOVERSION     := $(if $(filter 0,$(VERSION_MAJOR)),0.$(VERSION_MINOR),$(VERSION_MAJOR))
SHARED        ?= 1
SHLIB_REAL    := libpcq.so.$(VERSION)
SHLIB_SONAME  := libpcq.so.$(SOVERSION)
SHLIB_DIR     := $(dir $(OBJ))lib
SHLIB         := $(SHLIB_DIR)/$(SHLIB_REAL)
PIC_OBJS      := $(LIB_SRCS:%.c=$(OBJ)/pic/%.o)
SHLIB_CFLAGS  := -fPIC -fvisibility=hidden -DPCQ_BUILD_SHARED
# --no-undefined: a missing -lm fails here, not in the program that loads it.
SHLIB_LDFLAGS := -shared -Wl,-soname,$(SHLIB_SONAME) $(if $(filter 1,$(SAN)),,-Wl,--no-undefined)

.PHONY: shared
shared: $(SHLIB)

$(PIC_OBJS): $(OBJ)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(SAY) CC "$< (shared)"
	$(Q)$(CC) $(CPPFLAGS) $(WARN) -Werror $(CFLAGS) $(XFLAGS) $(SHLIB_CFLAGS) -MMD -MP -c $< -o $@

$(SHLIB): $(PIC_OBJS)
	@mkdir -p $(@D)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) $(XFLAGS) $(LDFLAGS) $(SHLIB_LDFLAGS) $^ $(LDLIBS) -o $@
	$(Q)ln -sf $(SHLIB_REAL) $(SHLIB_DIR)/$(SHLIB_SONAME)
	$(Q)ln -sf $(SHLIB_SONAME) $(SHLIB_DIR)/libpcq.so

-include $(PIC_OBJS:.o=.d)

# Every source and build file names its license (LICENSE; ci/check-spdx.sh).
check-spdx:
	@echo "== check: SPDX lines"
	@mkdir -p $(OBJ); if sh ci/check-spdx.sh > $(OBJ)/spdx.log 2>&1; then r="1 passed, 0 failed"; \
	  else r="0 passed, 1 failed"; fi; cat $(OBJ)/spdx.log; echo "spdx: $$r" >> $(RESULTS)

# ---------------------------------------------------------------------------
# make install PREFIX=/usr/local DESTDIR= ; make uninstall removes the same files.
#   $(INCLUDEDIR)/pcq_codec.h
#   $(LIBDIR)/libpcq.a, the shared library and its two links (SHARED=1)
#   $(PKGCONFIGDIR)/pcq.pc                       pkg-config --cflags --libs pcq
#   $(CMAKEDIR)/pcq{Config,ConfigVersion,Targets}.cmake
#                                  find_package(pcq CONFIG) and pcq::pcq
#   $(BINDIR)/pcqdump
# The CMake files come from templates under cmake/ (no cmake needed here). When
# LIBDIR, INCLUDEDIR and CMAKEDIR are below PREFIX, pcq.pc and the CMake files
# name them relative to the prefix (${prefix}, the CMake file's own place), so
# a tree installed with DESTDIR can be used where it lies. Run ldconfig after
# installing the shared library into a system directory.
# ---------------------------------------------------------------------------
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/pcq

pcq_empty :=
pcq_space := $(pcq_empty) $(pcq_empty)
# $(call pcq_below_prefix,DIR,PREFIX-TEXT): DIR with PREFIX replaced by PREFIX-TEXT
# when DIR is below PREFIX, else DIR itself.
pcq_below_prefix = $(if $(filter $(PREFIX)/%,$(1)),$(2)/$(patsubst $(PREFIX)/%,%,$(1)),$(1))
# The prefix as the CMake files find it: ../.. from $(CMAKEDIR), one .. per level.
PCQ_CMAKE_UP     = $(subst $(pcq_space),/,$(patsubst %,..,$(subst /, ,$(patsubst $(PREFIX)/%,%,$(CMAKEDIR)))))
PCQ_CMAKE_PREFIX = $(if $(filter $(PREFIX)/%,$(CMAKEDIR)),$${CMAKE_CURRENT_LIST_DIR}/$(PCQ_CMAKE_UP),$(PREFIX))
PCQ_SIZEOF_VOID_P = $(shell echo | $(CC) -dM -E - 2>/dev/null | sed -n 's/^\#define __SIZEOF_POINTER__ //p')
PCQ_CMAKE_FILES := pcqConfig.cmake pcqConfigVersion.cmake pcqTargets.cmake
PCQ_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' \
	  -e 's|@LIBDIR@|$(call pcq_below_prefix,$(LIBDIR),$${prefix})|g' \
	  -e 's|@INCLUDEDIR@|$(call pcq_below_prefix,$(INCLUDEDIR),$${prefix})|g' \
	  -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
	  -e 's|@PCQ_CMAKE_PREFIX@|$(PCQ_CMAKE_PREFIX)|g' \
	  -e 's|@PCQ_CMAKE_LIBDIR@|$(call pcq_below_prefix,$(LIBDIR),$${_pcq_prefix})|g' \
	  -e 's|@PCQ_CMAKE_INCLUDEDIR@|$(call pcq_below_prefix,$(INCLUDEDIR),$${_pcq_prefix})|g' \
	  -e 's|@PCQ_SHLIB@|$(SHLIB_REAL)|g' -e 's|@PCQ_SONAME@|$(SHLIB_SONAME)|g' \
	  -e 's|@PCQ_SIZEOF_VOID_P@|$(PCQ_SIZEOF_VOID_P)|g'

install: $(LIB) $(PCQDUMP) $(if $(filter 1,$(SHARED)),$(SHLIB))
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR)
	$(INSTALL) -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libpcq.a
ifeq ($(SHARED),1)
	$(INSTALL) -m 644 $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SHLIB_REAL)
	ln -sf $(SHLIB_REAL) $(DESTDIR)$(LIBDIR)/$(SHLIB_SONAME)
	ln -sf $(SHLIB_SONAME) $(DESTDIR)$(LIBDIR)/libpcq.so
endif
	$(INSTALL) -m 644 pcq_codec.h $(DESTDIR)$(INCLUDEDIR)/pcq_codec.h
	$(INSTALL) -m 755 $(PCQDUMP) $(DESTDIR)$(BINDIR)/pcqdump
	@echo "write $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc"
	$(Q)$(PCQ_SUBST) pcq.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc
	$(Q)chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc
	@echo "write $(PCQ_CMAKE_FILES:%=$(DESTDIR)$(CMAKEDIR)/%)"
	$(Q)for f in $(PCQ_CMAKE_FILES); do \
	  $(PCQ_SUBST) cmake/$$f.in > $(DESTDIR)$(CMAKEDIR)/$$f && chmod 644 $(DESTDIR)$(CMAKEDIR)/$$f || exit 1; \
	done

# Whatever SHARED was at install time; the directory $(CMAKEDIR) is pcq's own.
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libpcq.a $(DESTDIR)$(LIBDIR)/$(SHLIB_REAL) \
	      $(DESTDIR)$(LIBDIR)/$(SHLIB_SONAME) $(DESTDIR)$(LIBDIR)/libpcq.so \
	      $(DESTDIR)$(INCLUDEDIR)/pcq_codec.h $(DESTDIR)$(BINDIR)/pcqdump \
	      $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc $(PCQ_CMAKE_FILES:%=$(DESTDIR)$(CMAKEDIR)/%)
	rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

clean:
	rm -rf build libpcq.a pcqdump

# ---------------------------------------------------------------------------
# More targets (bench, fuzz, coverage, ...) live in mk/*.mk, one file each,
# included here. Such a file keeps the default goal, and may add steps to
# make check: CHECK_EXTRA += my-target, a target that appends lines
# `<name>: N passed, N failed` to $(RESULTS) (they are summed with the rest).
# ---------------------------------------------------------------------------
CHECK_EXTRA ?=
include $(wildcard mk/*.mk)
