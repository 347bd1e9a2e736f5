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
TESTLIB_SRCS := $(filter-out $(TEST_SRCS),$(wildcard test/*.c))

LIB      := $(OUT)/libpcq.a
TOOLLIB  := $(OBJ)/libpcqtool.a
PCQDUMP  := $(OUT)/pcqdump
TESTS    := $(TEST_SRCS:test/%.c=$(TESTDIR)/%)

LIB_OBJS     := $(LIB_SRCS:%.c=$(OBJ)/%.o)
TOOL_OBJS    := $(TOOL_SRCS:%.c=$(OBJ)/%.o)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(OBJ)/%.o)
ALL_OBJS     := $(LIB_OBJS) $(TOOL_OBJS) $(TESTLIB_OBJS) \
                $(TOOL_MAIN:%.c=$(OBJ)/%.o) $(TEST_SRCS:%.c=$(OBJ)/%.o)

INCLUDES := -I. -Itools/pcqdump -Itest

# The demo: a realistic data buffer when the vectors have one, else any good one.
DEMO_PREFERRED := vectors/data/processor-information.hex
DEMO ?= $(firstword $(wildcard $(DEMO_PREFERRED)) \
                    $(patsubst %.json,%.hex,$(wildcard vectors/data/*.json)))

.PHONY: all build demo check check-variant check-cli check-cxx check-knobs install uninstall clean
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
	@$(MAKE) --no-print-directory check-cxx check-knobs $(CHECK_EXTRA)
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
# exits 1 with a message on stderr and prints nothing on stdout.
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
	    elif [ $$want = 1 ] && [ -s $(CLI_OUT).out ]; then why="printed output for a malformed buffer"; \
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
	echo "$(VARIANT) pcqdump: $$pass passed, $$fail failed" >> $(RESULTS)

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
         -DPCQ_COOK_WORK_MIN=0 -DPCQ_COOK_WORK_PER_BYTE=0 -DPCQ_PAIR_CHECK_MAX=0 -DPCQ_API=extern
check-knobs:
	@for knob in $(KNOBS); do \
	  echo "== check: the library with $$knob"; \
	  if $(CC) $(WARN) -Werror $$knob -fsyntax-only $(LIB_SRCS); then \
	    echo "$$(basename $(CC)) ($$knob): 1 passed, 0 failed" >> $(RESULTS); \
	  else \
	    echo "$$(basename $(CC)) ($$knob): 0 passed, 1 failed" >> $(RESULTS); \
	  fi; \
	done

# ---------------------------------------------------------------------------
# make install
# ---------------------------------------------------------------------------
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

install: $(LIB) $(PCQDUMP)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libpcq.a
	$(INSTALL) -m 644 pcq_codec.h $(DESTDIR)$(INCLUDEDIR)/pcq_codec.h
	$(INSTALL) -m 755 $(PCQDUMP) $(DESTDIR)$(BINDIR)/pcqdump
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    pcq.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libpcq.a $(DESTDIR)$(INCLUDEDIR)/pcq_codec.h \
	      $(DESTDIR)$(BINDIR)/pcqdump $(DESTDIR)$(PKGCONFIGDIR)/pcq.pc

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
