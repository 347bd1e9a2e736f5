#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/callgrind.sh [--quick] BIN [PASSES] - instruction counts under callgrind.
#
# Runs BIN --cg OP --shape S --size 1MiB --passes PASSES under
#   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_cg_region
# so only the instructions of the measured operation are counted (building the
# buffers is left out), and divides by the bytes (or values) it handled.
# Instruction counts do not depend on the load of the machine.
#   --quick: only validate+walk, for `make bench`.
#   --hostile HOSTILE_BIN: every case and mode of bench/hostile.c at 16 KiB,
#     128 KiB and 1 MiB (BENCH_CG_HOSTILE_SIZES), Ir per input byte, and the goal
#     (at most 50 in any mode; the mode fields, the caller reading every field
#     of every item, is reported beside it); its region is hostile_cg_region.
# BENCH_CG_SIZE picks another size (native, 4KiB, 1MiB).
set -eu

quick=0 hostile=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
if [ "${1:-}" = "--hostile" ]; then hostile=1; shift; fi
bin=${1:?usage: callgrind.sh [--quick] BIN [PASSES]}
passes=${2:-3}
size=${BENCH_CG_SIZE:-1MiB}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if ! command -v valgrind >/dev/null 2>&1; then
    echo "callgrind.sh: valgrind not found" >&2
    exit 1
fi

# run OP SHAPE: sets ir (instructions in the region), bytes, values; ir=- if OP is unavailable.
run() {
    out="$tmp/cg.$1.$2"
    if valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_cg_region \
        --callgrind-out-file="$out" "$bin" --cg "$1" --shape "$2" --size "$size" \
        --passes "$passes" >"$out.txt" 2>"$out.log"; then
        ir=$(awk '/^totals:/ { print $2 }' "$out")
        bytes=$(sed -n 's/.* bytes=\([0-9]*\).*/\1/p' "$out.txt")
        values=$(sed -n 's/.* values=\([0-9]*\).*/\1/p' "$out.txt")
    else
        ir=-; bytes=0; values=0
        if ! grep -q 'unknown operation' "$out.log"; then
            echo "callgrind.sh: $1 on $2 failed:" >&2
            tail -n 3 "$out.log" >&2
        fi
    fi
}

# per IR N: IR / (passes * N) with 2 decimals, or "-".
per() {
    if [ "$1" = "-" ] || [ "$2" = 0 ]; then echo "-"; else
        awk -v i="$1" -v p="$passes" -v n="$2" 'BEGIN { printf "%.2f", i / (p * n) }'; fi
}

# maxof A B: the larger, "-" (not measured) losing to any number
maxof() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-") print b; else if (b == "-") print a; else print (a + 0 > b + 0) ? a : b }'
}
# verdict WORST BOUND: met when WORST <= BOUND
verdict() {
    awk -v w="$1" -v b="$2" 'BEGIN { if (w == "-") print "not measured"; else print (w + 0 <= b + 0) ? "met" : "MISSED" }'
}
# limit_val SHAPE V HV: after a missed validation goal, what the same run
# measured on the worst shape: the same rules as one plain hand-written loop
# (handval), and validation's share of its instructions.
limit_val() {
    if [ "$3" = "-" ]; then return; fi
    awk -v s="$1" -v v="$2" -v h="$3" 'BEGIN { printf "    measured on %s: the same rules as one plain hand-written loop (handval) %.2f Ir/B; validation takes %.2fx its instructions\n", s, h, v / h }'
}
# limit_batch SHAPE V HW B: after a missed batch goal, validation plus a
# hand-written loop that reads only what the walk reads (handwalk), on the
# worst shape: when that sum is over the goal, no walk after validation
# meets it there.
limit_batch() {
    if [ "$3" = "-" ] || [ "$2" = "-" ]; then return; fi
    awk -v s="$1" -v v="$2" -v h="$3" -v b="$4" 'BEGIN { f = v + h;
        printf "    limit measured on %s: validation %.2f + the hand-written walk (handwalk) %.2f = %.2f Ir/B%s\n", s, v, h, f,
            (f > b ? ": no walk after validation reaches the goal there" : " (under the goal: not a limit)") }'
}
shapes=${BENCH_CG_SHAPES:-procinfo process multi wide small mix}

if [ $hostile = 1 ]; then
    hsizes=${BENCH_CG_HOSTILE_SIZES:-16KiB 128KiB 1MiB}
    printf 'callgrind, hostile inputs (bench/hostile.c; instructions inside hostile_cg_region per input byte, %s passes)\n\n' "$passes"
    printf '%-21s %-7s' case mode
    for z in $hsizes; do printf ' %9s' "$z"; done
    printf '\n'
    worst=- worst_at= fworst=- fworst_at=
    "$bin" --list > "$tmp/list"
    while read -r c m; do
        printf '%-21s %-7s' "$c" "$m"
        for z in $hsizes; do
            out="$tmp/h.$c.$m.$z"
            if valgrind --tool=callgrind --collect-atstart=no --toggle-collect=hostile_cg_region \
                --callgrind-out-file="$out" "$bin" --cg "$c" "$m" --size "$z" --passes "$passes" \
                >"$out.txt" 2>"$out.log"; then
                ir=$(awk '/^totals:/ { print $2 }' "$out")
                bytes=$(sed -n 's/.* bytes=\([0-9]*\).*/\1/p' "$out.txt")
                v=$(per "$ir" "$bytes")
            else
                v=FAILED
                echo "callgrind.sh: $c $m at $z failed:" >&2
                tail -n 3 "$out.log" >&2
            fi
            printf ' %9s' "$v"
            [ "$v" = FAILED ] && v=1000000
            if [ "$m" = fields ]; then # the caller's field reads: beside the goal
                if [ "$(maxof "$fworst" "$v")" != "$fworst" ]; then fworst=$v fworst_at="$c $z"; fi
            elif [ "$(maxof "$worst" "$v")" != "$worst" ]; then worst=$v worst_at="$c $m $z"; fi
        done
        printf '\n'
    done < "$tmp/list"
    printf '\ngoal: any input from 16 KiB to 1 MiB, in any mode, <= 50 Ir/B: worst %s (%s) -> %s\n' \
        "$worst" "$worst_at" "$(verdict "$worst" 50)"
    if [ "$fworst" != - ]; then
        printf 'beside it: the README step-by-step example reading every field (fields): worst %s (%s)\n' \
            "$fworst" "$fworst_at"
    fi
    exit 0
fi

if [ $quick = 1 ]; then
    printf '\ninstructions per input byte (callgrind, %s, %s passes):\n' "$size" "$passes"
    wv=-; ww=-; wv_at=; wv_hv=-
    for shape in $shapes; do
        run validate "$shape"; v=$(per "$ir" "$bytes")
        run walk "$shape"; w=$(per "$ir" "$bytes")
        run handval "$shape"; hv=$(per "$ir" "$bytes")
        printf '  %-8s validate %s  walk %s  (handval %s)\n' "$shape" "$v" "$w" "$hv"
        if [ "$(maxof "$wv" "$v")" != "$wv" ]; then wv=$v wv_at=$shape wv_hv=$hv; fi
        ww=$(maxof "$ww" "$w")
    done
    printf '  goals: validate <= 0.5: worst %s (%s) -> %s; README walk <= 1.5: worst %s -> %s\n' \
        "$wv" "$wv_at" "$(verdict "$wv" 0.5)" "$ww" "$(verdict "$ww" 1.5)"
    if [ "$(verdict "$wv" 0.5)" = MISSED ]; then limit_val "$wv_at" "$wv" "$wv_hv"; fi
    exit 0
fi

printf 'callgrind (%s buffers, %s passes; instructions counted inside bench_cg_region only)\n\n' "$size" "$passes"
printf '%-8s %10s | %8s %8s %8s %8s %8s %8s | %8s %8s %8s | %8s %8s %8s %8s %8s %8s\n' \
    shape bytes validate walk walk8 batch scan pass encode enci encb memcpy sum handval handwalk handpass \
    handenc
printf '%-8s %10s | %8s %8s %8s %8s %8s %8s | %8s %8s %8s | %8s %8s %8s %8s %8s %8s\n' \
    "" "" Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B Ir/B
wv=-; ww=-; wb=-; we=-; wv_at=; wv_hv=-; wb_at=; wb_v=-; wb_hw=-
cooks=
for shape in $shapes; do
    run validate "$shape"; v_ir=$ir; nbytes=$bytes; nvalues=$values
    run walk "$shape"; w_ir=$ir
    run walk8 "$shape"; w8_ir=$ir
    run batch "$shape"; b_ir=$ir
    run scan "$shape"; sc_ir=$ir
    run pass "$shape"; p_ir=$ir
    run encode "$shape"; e_ir=$ir
    run enci "$shape"; ei_ir=$ir
    run encb "$shape"; eb_ir=$ir
    run memcpy "$shape"; m_ir=$ir
    run sum "$shape"; s_ir=$ir
    run handval "$shape"; hv_ir=$ir
    run handwalk "$shape"; hw_ir=$ir
    run handpass "$shape"; hp_ir=$ir
    run handenc "$shape"; he_ir=$ir
    printf '%-8s %10s | %8s %8s %8s %8s %8s %8s | %8s %8s %8s | %8s %8s %8s %8s %8s %8s\n' \
        "$shape" "$nbytes" "$(per "$v_ir" "$nbytes")" "$(per "$w_ir" "$nbytes")" "$(per "$w8_ir" "$nbytes")" \
        "$(per "$b_ir" "$nbytes")" \
        "$(per "$sc_ir" "$nbytes")" "$(per "$p_ir" "$nbytes")" "$(per "$e_ir" "$nbytes")" \
        "$(per "$ei_ir" "$nbytes")" "$(per "$eb_ir" "$nbytes")" "$(per "$m_ir" "$nbytes")" "$(per "$s_ir" "$nbytes")" \
        "$(per "$hv_ir" "$nbytes")" "$(per "$hw_ir" "$nbytes")" "$(per "$hp_ir" "$nbytes")" \
        "$(per "$he_ir" "$nbytes")"
    v=$(per "$v_ir" "$nbytes") b=$(per "$b_ir" "$nbytes")
    if [ "$(maxof "$wv" "$v")" != "$wv" ]; then wv=$v wv_at=$shape wv_hv=$(per "$hv_ir" "$nbytes"); fi
    if [ "$(maxof "$wb" "$b")" != "$wb" ]; then
        wb=$b wb_at=$shape wb_v=$v wb_hw=$(per "$hw_ir" "$nbytes")
    fi
    ww=$(maxof "$ww" "$(per "$w_ir" "$nbytes")")
    we=$(maxof "$we" "$(per "$eb_ir" "$nbytes")")
    run cook "$shape"; c_ir=$ir
    if [ "$c_ir" != "-" ]; then
        run column "$shape"; col_ir=$ir
        run hand "$shape"; h_ir=$ir
        cooks="$cooks$(printf '%-8s %10s | %8s %8s %8s | %6s %6s' "$shape" "$nvalues" \
            "$(per "$c_ir" "$nvalues")" "$(per "$col_ir" "$nvalues")" "$(per "$h_ir" "$nvalues")" \
            "$(awk -v c="$c_ir" -v h="$h_ir" 'BEGIN { printf "%.2fx", c / h }')" \
            "$(awk -v c="$col_ir" -v h="$h_ir" 'BEGIN { printf "%.2fx", c / h }')")
"
        wc=$(awk -v c="$col_ir" -v h="$h_ir" 'BEGIN { printf "%.2f", c / h }')
        wcol=$(maxof "${wcol:--}" "$wc")
    fi
done
printf '\n%-8s %10s | %8s %8s %8s | %6s %6s\n' shape values cook column hand "cook/" "col/"
printf '%-8s %10s | %8s %8s %8s | %6s %6s\n' "" "" Ir/value Ir/value Ir/value hand hand
printf '%s' "$cooks"
printf '\nvalidate = pcq_decode_data; walk = the README walk (decode, then the typed iterators over every\n'
printf 'block, instance and value); walk8 = the README'"'"'s example as written, less its printf: the\n'
printf 'same, every name converted to UTF-8 and every value'"'"'s counter id taken; batch = the same as\n'
printf 'walk, a block'"'"'s values by pcq_block_rows_u64;\n'
printf 'scan / pass = one pass with PCQ_BULK, values checked / also read; encode, enci, encb per output\n'
printf 'byte (a call a value / an instance a call / the batch writer, a block'"'"'s instances a call);\n'
printf 'cook = pcq_calc_cook, column = pcq_calc_cook_column, hand = inline formulas;\n'
printf 'handval = the rules validation takes a canonical buffer by, as one hand-written loop\n'
printf '(bench/hand_check.h): validation'"'"'s yardstick; handwalk = the walk'"'"'s reading as one\n'
printf 'hand-written loop trusting the bytes (bench/hand_walk.h): with validation, the walk'"'"'s\n'
printf 'yardstick; handpass = both as one hand-written loop, the buffer read once (bench/hand_pass.h):\n'
printf 'the single pass'"'"'s yardstick; handenc = the same bytes by hand-written stores (bench/hand_encode.h): the\n'
printf 'writers'"'"' yardstick.\n'
printf 'goals (the worst shape counts):\n'
printf '  validation alone <= 0.5 Ir/B:            worst %s (%s) -> %s\n' "$wv" "$wv_at" "$(verdict "$wv" 0.5)"
if [ "$(verdict "$wv" 0.5)" = MISSED ]; then limit_val "$wv_at" "$wv" "$wv_hv"; fi
printf '  README walk <= 1.5 Ir/B:                 worst %s -> %s\n' "$ww" "$(verdict "$ww" 1.5)"
printf '  walk through a batch accessor <= 1.0:    worst %s (%s) -> %s\n' "$wb" "$wb_at" "$(verdict "$wb" 1.0)"
if [ "$(verdict "$wb" 1.0)" = MISSED ]; then limit_batch "$wb_at" "$wb_v" "$wb_hw" 1.0; fi
printf '  encode through the writer <= 1.5 Ir/B:   worst %s -> %s\n' "$we" "$(verdict "$we" 1.5)"
printf '  cooking <= 2x the hand formula (Ir):     worst %s -> %s\n' "${wcol:--}" "$(verdict "${wcol:--}" 2.0)"
