#!/bin/sh
# bench/callgrind.sh [--quick] BIN [PASSES] - instruction counts under callgrind.
#
# Runs BIN --cg OP --shape S --size 1MiB --passes PASSES under
#   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_cg_region
# so only the instructions of the measured operation are counted (building the
# buffers is left out), and divides by the bytes (or values) it handled.
# Instruction counts do not depend on the load of the machine.
#   --quick: only validate+walk, for `make bench`.
# BENCH_CG_SIZE picks another size (native, 4KiB, 1MiB).
set -eu

quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
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

worst=-
# the larger of two figures, "-" (not measured) losing to any number
maxof() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-") print b; else if (b == "-") print a; else print (a + 0 > b + 0) ? a : b }'
}
verdict() {
    awk -v w="$1" 'BEGIN { if (w == "-") print "not measured"; else print (w + 0 <= 1.0) ? "met" : "MISSED" }'
}
if [ $quick = 1 ]; then
    printf '\ninstructions per input byte, validate+walk (callgrind, %s, %s passes):' "$size" "$passes"
    for shape in procinfo process multi; do
        run walk "$shape"
        w=$(per "$ir" "$bytes")
        printf '  %s %s' "$shape" "$w"
        worst=$(maxof "$worst" "$w")
    done
    printf '  -> goal <= 1.0: %s\n' "$(verdict "$worst")"
    exit 0
fi

printf 'callgrind (%s buffers, %s passes; instructions counted inside bench_cg_region only)\n\n' "$size" "$passes"
printf '%-8s %10s | %8s %8s %8s | %8s %8s %8s | %8s %8s %8s %6s\n' \
    shape bytes validate walk iterate encode memcpy sum walk cook hand "cook/"
printf '%-8s %10s | %8s %8s %8s | %8s %8s %8s | %8s %8s %8s %6s\n' \
    "" "" "Ir/B" "Ir/B" "Ir/B" "Ir/B" "Ir/B" "Ir/B" "Ir/value" "Ir/value" "Ir/value" "hand"
for shape in procinfo process multi; do
    run validate "$shape"; v_ir=$ir; nbytes=$bytes; nvalues=$values
    run walk "$shape"; w_ir=$ir
    run iterate "$shape"; i_ir=$ir
    run encode "$shape"; e_ir=$ir
    run memcpy "$shape"; m_ir=$ir
    run sum "$shape"; s_ir=$ir
    run cook "$shape"; c_ir=$ir
    run hand "$shape"; h_ir=$ir
    ratio=-
    if [ "$c_ir" != "-" ] && [ "$h_ir" != "-" ]; then
        ratio=$(awk -v c="$c_ir" -v h="$h_ir" 'BEGIN { printf "%.2fx", c / h }')
    fi
    printf '%-8s %10s | %8s %8s %8s | %8s %8s %8s | %8s %8s %8s %6s\n' \
        "$shape" "$nbytes" "$(per "$v_ir" "$nbytes")" "$(per "$w_ir" "$nbytes")" \
        "$(per "$i_ir" "$nbytes")" "$(per "$e_ir" "$nbytes")" "$(per "$m_ir" "$nbytes")" \
        "$(per "$s_ir" "$nbytes")" "$(per "$w_ir" "$nvalues")" "$(per "$c_ir" "$nvalues")" \
        "$(per "$h_ir" "$nvalues")" "$ratio"
    w=$(per "$w_ir" "$nbytes")
    worst=$(maxof "$worst" "$w")
done
printf '\nwalk = validate + iterate (pcq_decode_data, then every block/instance/value); iterate = the\n'
printf 'iterators alone; encode per output byte; cook/hand per value (cook = pcq_calc_cook).\n'
printf 'goal: <= 1.0 instruction per input byte for validate+walk: worst %s -> %s\n' "$worst" "$(verdict "$worst")"
