# SPDX-License-Identifier: MIT
# mk/bench.mk - speed benchmarks (bench/), included by the top-level Makefile:
#
#   make bench            build build/bench/pcq_bench with -O2, print the table (bench/RESULTS.md),
#                         then instructions per input byte under callgrind when valgrind is there
#                         (validate and walk, and every hostile input)
#   make bench-callgrind  the full callgrind table (every operation, every shape), and the
#                         hostile inputs' instructions per byte (bench/callgrind.sh --hostile)
#   make bench-hostile    build/bench/pcq_hostile: the worst inputs known (D11, D12), ns per
#                         byte and x memcpy at 256 KiB, 1 MiB and 8 MiB (also run by make bench)
#   make bench-clean
#   make bench-smoke      the check step below (also run by make check)
#
# -gdwarf-4: valgrind 3.19 cannot read the DWARF 5 that clang 14 emits by default.
# Knobs (all ?=): BENCH_CC, BENCH_CFLAGS, BENCH_ARGS (e.g. --reps 9, --sizes 1MiB),
# BENCH_CG_PASSES, PCQ_LIB_SRCS. Also usable alone: make -f mk/bench.mk bench
# The mix shape's blocks of instances hold 8 each; another count, for the block-size
# sweep of bench/RESULTS.md: BENCH_CFLAGS="-std=c99 -O2 -gdwarf-4 -DBENCH_MIX_INST=32"
# BENCH_BIN=build/bench/pcq_bench_mix32 (then pcq_bench_mix32 --cg OP --shape mix).
# The small and mix shapes' names are "thread_NNNN"; another stem, for the name lengths
# of bench/RESULTS.md: BENCH_CFLAGS="-std=c99 -O2 -gdwarf-4 -DBENCH_NAME_STEM='\"t\"'".
# Names of 1 to 3 characters ("0" to "999"): -DBENCH_NAME_STEM='\"\"' -DBENCH_NAME_DIGITS=3.

# Whatever the including Makefile's default goal is, this file does not change it.
BENCH_SAVED_GOAL := $(.DEFAULT_GOAL)

BENCH_CC ?= $(CC)
BENCH_CFLAGS ?= -std=c99 -O2 -gdwarf-4 -Wall -Wextra
BENCH_ARGS ?=
BENCH_CG_PASSES ?= 3
PCQ_LIB_SRCS ?= pcq_codec.c pcq_calc.c

BENCH_BIN ?= build/bench/pcq_bench
HOSTILE_BIN ?= build/bench/pcq_hostile
BENCH_SRCS := bench/bench.c bench/shapes.c bench/allocs.c
BENCH_HDRS := bench/shapes.h bench/allocs.h bench/readme_walk.h bench/hand_check.h bench/hand_walk.h \
              bench/hand_pass.h bench/hand_encode.h pcq_codec.h
# Every heap call of the bench and the library objects goes through bench/allocs.c.
BENCH_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=aligned_alloc,--wrap=posix_memalign,--wrap=strdup
# Cook only once the evaluator defines pcq_calc_cook.
BENCH_COOK ?= $(if $(shell grep -lsE '^(PCQ_API )?int pcq_calc_cook\b' $(PCQ_LIB_SRCS)),1,0)

$(BENCH_BIN): $(BENCH_SRCS) $(BENCH_HDRS) $(PCQ_LIB_SRCS) mk/bench.mk
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -DBENCH_COOK=$(BENCH_COOK) '-DBENCH_CFLAGS="$(BENCH_CFLAGS)"' \
	    -o $@ $(BENCH_SRCS) $(PCQ_LIB_SRCS) $(BENCH_WRAP) -lm

$(HOSTILE_BIN): bench/hostile.c bench/readme_walk.h pcq_codec.h $(PCQ_LIB_SRCS) mk/bench.mk
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -I. -o $@ bench/hostile.c $(PCQ_LIB_SRCS) -lm

bench-hostile: $(HOSTILE_BIN)
	$(HOSTILE_BIN)

bench: $(BENCH_BIN) $(HOSTILE_BIN)
	$(BENCH_BIN) $(BENCH_ARGS)
	$(HOSTILE_BIN)
	@if command -v valgrind >/dev/null 2>&1; then \
	    sh bench/callgrind.sh --quick $(BENCH_BIN) $(BENCH_CG_PASSES) && \
	    sh bench/callgrind.sh --hostile $(HOSTILE_BIN) 1; \
	else echo "valgrind not found: instructions per byte not measured (make bench-callgrind)"; fi

bench-callgrind: $(BENCH_BIN) $(HOSTILE_BIN)
	sh bench/callgrind.sh $(BENCH_BIN) $(BENCH_CG_PASSES)
	sh bench/callgrind.sh --hostile $(HOSTILE_BIN) 1

bench-clean:
	rm -f $(BENCH_BIN) $(HOSTILE_BIN)

.PHONY: bench bench-callgrind bench-clean bench-hostile

# make check runs a smoke test of the bench (4 KiB buffers, one batch each, about a
# second): it builds, every buffer decodes and walks to the sum it was built with,
# cook equals the hand formula, and no heap call happens; and the hostile shapes at
# 1 MiB return what they must (a quadratic regression would take minutes there).
# Figures are not judged.
CHECK_EXTRA += bench-smoke
BENCH_SMOKE_LOG := $(dir $(BENCH_BIN))smoke.txt
RESULTS ?= build/check-results.txt
bench-smoke:
	@mkdir -p $(dir $(BENCH_BIN)); \
	if $(MAKE) --no-print-directory $(BENCH_BIN) $(HOSTILE_BIN) > $(BENCH_SMOKE_LOG) 2>&1 && \
	   $(BENCH_BIN) --sizes 4KiB --reps 1 --batch-ms 1 >> $(BENCH_SMOKE_LOG) 2>&1 && \
	   $(HOSTILE_BIN) --check >> $(BENCH_SMOKE_LOG) 2>&1; then \
	  echo "bench (smoke): 1 passed, 0 failed" >> $(RESULTS); \
	else \
	  tail -n 15 $(BENCH_SMOKE_LOG); \
	  echo "bench (smoke, see $(BENCH_SMOKE_LOG)): 0 passed, 1 failed" >> $(RESULTS); \
	fi

.PHONY: bench-smoke

.DEFAULT_GOAL := $(BENCH_SAVED_GOAL)
