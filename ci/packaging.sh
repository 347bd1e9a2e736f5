#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci/packaging.sh - proves the packaging with real consumer projects written
# into a temporary directory (docs/packaging.md). `make packaging-check` and
# .ci/run call it. Installs what it needs (Debian, as root) when missing.
#
#   a. make install into a DESTDIR: the exact file list, the soname and its
#      links, and that libpcq.so exports the PCQ_API functions of pcq_codec.h
#      and nothing else; pcq.pc's fields
#   b. a CMake project using the installed package, find_package(pcq CONFIG
#      REQUIRED) + pcq::pcq: from make install (shared, static, and the DESTDIR
#      tree where it lies) and from CMake's own install (shared, static); the
#      version file accepts this minor version and refuses the next
#   c. CMake projects using the source tree: add_subdirectory, FetchContent
#      with SOURCE_DIR and with a git URL; nothing installed, no pcq tests
#   d. a Meson project with pcq as a subproject, dependency('pcq', fallback:
#      ['pcq', 'pcq_dep']), default_library shared and static
#   e. pkg-config: cc $(pkg-config --cflags --libs pcq), shared and -static
#   f. ctest in CMake builds of the repository (shared and static) and meson
#      test in a Meson build; meson install's files and soname; pcq.pc of
#      cmake --install --prefix names that prefix
#   g. make uninstall leaves nothing behind
#   h. ci/check-spdx.sh: every source and build file has its SPDX line
#      (SPDX_STRICT=0 makes it a report only); ci/add-spdx.sh on a copy of
#      the tree makes check-spdx.sh pass (always checked)
#   then ci/cflite-emulate.sh (skip with PACKAGING_CFLITE=0).
#
# Each check prints `ok` or `FAIL` (with the end of its log); the last line is
# `packaging: N passed, N failed`, and the exit status is 1 if any failed.
# PACKAGING_KEEP=1 keeps the temporary directory (it is kept after a failure).
# `bash ci/packaging.sh --deps-only` only installs what it needs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
start=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 2)

# ---- what it needs ----------------------------------------------------------
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have make || need+=(make)
have gcc || need+=(gcc libc6-dev)
have g++ || need+=(g++)
have cmake || need+=(cmake)
have meson || need+=(meson)
have ninja || need+=(ninja-build)
have pkg-config || need+=(pkg-config)
have zip || need+=(zip)
have unzip || need+=(unzip)
have git || need+=(git)
have readelf || need+=(binutils)
have clang || need+=(clang)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "packaging: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get -o DPkg::Lock::Timeout=600 update -q &&
    apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends "${need[@]}"; } \
    > /tmp/packaging-apt.log 2>&1 || { tail -n 20 /tmp/packaging-apt.log; exit 1; }
fi
[ "${1:-}" = --deps-only ] && exit 0   # .ci/run installs every step's packages first
echo "packaging: $(cmake --version | head -n 1), meson $(meson --version), ninja $(ninja --version), $(gcc --version | head -n 1)"

# ---- the version, as every build reads it -----------------------------------
hdr_field() { sed -n "s/^#define PCQ_VERSION_$1  *\\([0-9][0-9]*\\).*/\\1/p" pcq_codec.h; }
major=$(hdr_field MAJOR) minor=$(hdr_field MINOR) patch=$(hdr_field PATCH)
version=$major.$minor.$patch
if [ "$major" = 0 ]; then soversion=0.$minor; else soversion=$major; fi
shlib=libpcq.so.$version soname=libpcq.so.$soversion
next_minor=$major.$((minor + 1))
echo "packaging: pcq $version, soname $soname"

T=$(mktemp -d /tmp/pcq-packaging.XXXXXX) || exit 2
mkdir -p "$T/logs"
passed=0 failed=0
cleanup() {
  if [ "$failed" != 0 ] || [ "${PACKAGING_KEEP:-0}" = 1 ]; then echo "packaging: kept $T"
  else rm -rf "$T"; fi
}
trap cleanup EXIT

# check NAME COMMAND...: one check, in a subshell; its output goes to $T/logs/NAME.log.
check() {
  local name=$1 log
  shift
  log="$T/logs/$name.log"
  if ( "$@" ) > "$log" 2>&1; then
    passed=$((passed + 1))
    echo "  ok   $name"
  else
    failed=$((failed + 1))
    echo "  FAIL $name (log $log)"
    tail -n 25 "$log" | sed 's/^/       /'
  fi
}
section() { echo "== packaging: $*"; }
# say: a line in a check's log. expect_eq WHAT GOT WANT
expect_eq() {
  if [ "$2" = "$3" ]; then echo "$1: $2"; else echo "$1: got '$2', expected '$3'"; return 1; fi
}

# The exported functions pcq_codec.h promises: every PCQ_API declaration.
sed -n 's/^PCQ_API[^(]*[^A-Za-z0-9_]\(pcq_[A-Za-z0-9_]*\) *(.*/\1/p' pcq_codec.h | sort -u > "$T/api.txt"

# check_shlib DIR: DIR holds the shared library, its soname link and the dev
# link, with the right soname, exporting exactly the PCQ_API functions.
check_shlib() {
  local d=$1 got
  [ -f "$d/$shlib" ] && [ ! -L "$d/$shlib" ] || { echo "$d/$shlib: not a regular file"; return 1; }
  expect_eq "$soname ->" "$(readlink "$d/$soname")" "$shlib" || return 1
  expect_eq "libpcq.so ->" "$(readlink "$d/libpcq.so")" "$soname" || return 1
  got=$(readelf -d "$d/$shlib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
  expect_eq "soname" "$got" "$soname" || return 1
  nm -D --defined-only "$d/$shlib" | awk '{ print $NF }' | sort -u > "$T/exported.txt"
  if grep -v '^pcq_' "$T/exported.txt"; then echo "^ exported, not pcq_*"; return 1; fi
  if ! diff "$T/api.txt" "$T/exported.txt"; then
    echo "exports differ from the PCQ_API declarations (< declared only, > exported only)"; return 1
  fi
  echo "exports: the $(wc -l < "$T/api.txt") PCQ_API functions, nothing else"
}
# check_needed PROGRAM yes|no: whether PROGRAM loads the shared libpcq.
check_needed() {
  local n
  n=$(readelf -d "$1" 2>/dev/null | grep -c "NEEDED.*\[$soname\]")
  if [ "$2" = yes ]; then expect_eq "$1 needs $soname" "$n" 1
  else expect_eq "$1 needs libpcq.so" "$n" 0; fi
}

# ---- the consumer program ---------------------------------------------------
mkdir -p "$T/app"
cat > "$T/app/app.c" <<'EOF'
/* SPDX-License-Identifier: MIT */
/* A program using pcq as an installed or bundled library: checks the version,
 * encodes a small data buffer, decodes and walks it, and rejects a truncated
 * copy. Exits 0 and prints one line when all of that works. */
#include <pcq_codec.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    uint8_t buf[256];
    size_t n = 0;
    pcq_writer w;
    pcq_data hdr, d;
    pcq_error err;
    pcq_iter blocks, insts, vals;
    pcq_block b;
    pcq_data_instance inst;
    pcq_value v;
    const uint32_t ids[2] = {1, 2};
    unsigned long long sum = 0;
    int nblocks = 0;

    if (pcq_version() != PCQ_VERSION_NUMBER || strcmp(pcq_version_string(), PCQ_VERSION_STRING) != 0) {
        fprintf(stderr, "header %s, library %s\n", PCQ_VERSION_STRING, pcq_version_string());
        return 1;
    }
    memset(&hdr, 0, sizeof hdr);
    hdr.perf_freq = 10000000;
    pcq_writer_init(&w, buf, sizeof buf);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance(&w, 0, (const uint8_t *)"_\0T\0o\0t\0a\0l\0", 12);
    pcq_put_value_u64(&w, 1000);
    pcq_put_value_u32(&w, 7);
    pcq_end_block(&w);
    pcq_end_data(&w);
    if (pcq_writer_finish(&w, &n) != PCQ_OK) {
        fprintf(stderr, "encode failed (%zu bytes needed)\n", n);
        return 1;
    }
    if (pcq_decode_data(buf, n, NULL, &d, &err) != PCQ_OK) {
        fprintf(stderr, "offset 0x%zx: %s (%s)\n", err.offset, pcq_strerror(err.code), err.what);
        return 1;
    }
    pcq_data_blocks(&d, &blocks);
    while (pcq_blocks_next(&blocks, &b) == 1) {
        nblocks++;
        pcq_block_instances(&d, &b, &insts);
        while (pcq_instances_of_block_next(&insts, &inst) == 1) {
            pcq_instance_values(&d, &inst, &vals);
            while (pcq_values_next(&vals, &v) == 1)
                sum += (unsigned long long)v.u64;
        }
    }
    if (pcq_decode_data(buf, n - 1, NULL, &d, &err) == PCQ_OK) {
        fprintf(stderr, "a truncated buffer decoded\n");
        return 1;
    }
    printf("pcq %s: %zu bytes, %d block, values sum to %llu; truncated: %s\n",
           pcq_version_string(), n, nblocks, sum, pcq_strerror(err.code));
    return nblocks == 1 && sum == 1007 ? 0 : 1;
}
EOF

# A copy of the tree as a checkout has it (tracked and new files, not ignored
# ones), for the Meson subproject and the SPDX check.
mkdir -p "$T/tree"
git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$T/tree"

cmake_gen=()
have ninja && cmake_gen=(-G Ninja)

# ---- a. make install ----------------------------------------------------------
section "a. make install PREFIX=/opt/pcq DESTDIR=$T/stage"
stage=$T/stage sp=$T/stage/opt/pcq
t_make_install() {
  make --no-print-directory -j"$jobs" install PREFIX=/opt/pcq DESTDIR="$T/stage" || return 1
  (cd "$sp" && find . -not -type d | sed 's|^\./||' | sort) > "$T/installed.txt"
  printf '%s\n' bin/pcqdump include/pcq_codec.h lib/libpcq.a lib/libpcq.so "lib/$soname" "lib/$shlib" \
    lib/pkgconfig/pcq.pc lib/cmake/pcq/pcqConfig.cmake lib/cmake/pcq/pcqConfigVersion.cmake \
    lib/cmake/pcq/pcqTargets.cmake | sort > "$T/expected.txt"
  diff "$T/expected.txt" "$T/installed.txt" || { echo "installed files differ (< expected, > installed)"; return 1; }
  echo "files: $(wc -l < "$T/installed.txt"), as expected"
}
check make-install t_make_install
check make-install-shlib check_shlib "$sp/lib"
t_pc_fields() {
  local pc=$1 libdir=$2
  expect_eq Version "$(sed -n 's/^Version: //p' "$pc")" "$version" || return 1
  expect_eq Libs "$(sed -n 's/^Libs: //p' "$pc")" "-L\${libdir} -lpcq" || return 1
  expect_eq Libs.private "$(sed -n 's/^Libs.private: //p' "$pc")" "-lm" || return 1
  expect_eq Cflags "$(sed -n 's/^Cflags: //p' "$pc")" "-I\${includedir}" || return 1
  expect_eq libdir "$(sed -n 's/^libdir=//p' "$pc")" "$libdir" || return 1
}
check make-install-pc t_pc_fields "$sp/lib/pkgconfig/pcq.pc" "\${prefix}/lib"
check make-install-pcqdump "$sp/bin/pcqdump" --hex --kind data vectors/data/counterset-2x3.hex

# The same into a plain prefix (no DESTDIR), for the consumers.
prefix=$T/prefix
check make-install-prefix make --no-print-directory -j"$jobs" install PREFIX="$prefix"

# ---- b. CMake: the installed package -------------------------------------------
section "b. CMake, find_package(pcq CONFIG REQUIRED) on installed trees"
mkdir -p "$T/cmake-installed"
cat > "$T/cmake-installed/CMakeLists.txt" <<EOF
# SPDX-License-Identifier: MIT
cmake_minimum_required(VERSION 3.13...3.25)
project(consumer LANGUAGES C)
find_package(pcq $major.$minor CONFIG REQUIRED)
get_target_property(_type pcq::pcq TYPE)
message(STATUS "consumer: pcq \${pcq_VERSION} from \${pcq_DIR}, pcq::pcq is \${_type}")
add_executable(app "$T/app/app.c")
target_link_libraries(app PRIVATE pcq::pcq)
EOF
# cmake_consumer NAME PREFIX yes|no [CMAKE-ARGS...]: configure, build, run; check the package found
# and whether the program loads the shared library.
cmake_consumer() {
  local name=$1 pfx=$2 shared=$3 b=$T/build-$1
  shift 3
  cmake -S "$T/cmake-installed" -B "$b" "${cmake_gen[@]}" -DCMAKE_PREFIX_PATH="$pfx" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@" || return 1
  grep -q "^pcq_DIR:PATH=$pfx/lib.*/cmake/pcq\$" "$b/CMakeCache.txt" || { echo "pcq not found in $pfx"; return 1; }
  cmake --build "$b" -j "$jobs" || return 1
  "$b/app" || return 1
  check_needed "$b/app" "$shared"
}
check cmake-find-make-shared cmake_consumer make-shared "$prefix" yes
check cmake-find-make-static cmake_consumer make-static "$prefix" no -DPCQ_USE_STATIC_LIBS=ON
check cmake-find-make-destdir cmake_consumer make-destdir "$sp" yes

# CMake's own build of the repository: shared with ctest (f), then installed.
cmake_repo() {   # NAME SHARED(ON|OFF)
  local b=$T/build-repo-$1
  cmake -S "$root" -B "$b" "${cmake_gen[@]}" -DBUILD_SHARED_LIBS="$2" \
    -DCMAKE_INSTALL_PREFIX="$T/cmake-prefix-$1" || return 1
  cmake --build "$b" -j "$jobs" || return 1
  (cd "$b" && ctest --output-on-failure -j "$jobs") || return 1
  cmake --install "$b" || return 1
  (cd "$T/cmake-prefix-$1" && find . -not -type d | sort)
}
section "f. ctest in CMake builds of the repository; their installs"
check cmake-repo-shared-ctest cmake_repo shared ON
check cmake-repo-static-ctest cmake_repo static OFF
cmake_libdir=$(cd "$T/cmake-prefix-shared" 2>/dev/null && dirname "$(find . -name pcq.pc | head -n 1)" | sed 's|^\./||; s|/pkgconfig$||')
cmake_libdir=${cmake_libdir:-lib}
check cmake-install-shlib check_shlib "$T/cmake-prefix-shared/$cmake_libdir"
check cmake-install-pc t_pc_fields "$T/cmake-prefix-shared/$cmake_libdir/pkgconfig/pcq.pc" "\${prefix}/$cmake_libdir"
t_cmake_static_files() {
  local d=$T/cmake-prefix-static
  [ -f "$d/$cmake_libdir/libpcq.a" ] || { echo "no libpcq.a"; return 1; }
  if ls "$d/$cmake_libdir"/libpcq.so* 2>/dev/null; then echo "^ a shared library in a static install"; return 1; fi
  for f in include/pcq_codec.h bin/pcqdump "$cmake_libdir/cmake/pcq/pcqConfig.cmake" \
           "$cmake_libdir/cmake/pcq/pcqConfigVersion.cmake" "$cmake_libdir/cmake/pcq/pcqTargets.cmake"; do
    [ -f "$d/$f" ] || { echo "missing $f"; return 1; }
  done
  echo "static install: libpcq.a, header, pcqdump, pcq.pc, CMake package"
}
check cmake-install-static-files t_cmake_static_files
# cmake --install --prefix DIR, another prefix than the configured one: pcq.pc names DIR.
t_cmake_install_prefix() {
  local d=$T/cmake-prefix-moved
  cmake --install "$T/build-repo-static" --prefix "$d" || return 1
  expect_eq "pcq.pc prefix" "$(sed -n 's/^prefix=//p' "$d/$cmake_libdir/pkgconfig/pcq.pc")" "$d"
}
check cmake-install-moved-prefix t_cmake_install_prefix
section "b. (continued) on CMake's installs"
check cmake-find-cmake-shared cmake_consumer cmake-shared "$T/cmake-prefix-shared" yes
check cmake-find-cmake-static cmake_consumer cmake-static "$T/cmake-prefix-static" no

# The version files: this major.minor is accepted, the next minor is not.
mkdir -p "$T/cmake-version"
cat > "$T/cmake-version/CMakeLists.txt" <<EOF
# SPDX-License-Identifier: MIT
cmake_minimum_required(VERSION 3.13...3.25)
project(version_check NONE)
find_package(pcq $next_minor CONFIG QUIET)
if(pcq_FOUND)
  message(FATAL_ERROR "pcq \${pcq_VERSION} accepted for a request of $next_minor")
endif()
find_package(pcq $version EXACT CONFIG REQUIRED)
find_package(pcq CONFIG REQUIRED)
message(STATUS "pcq \${pcq_VERSION}: $version EXACT and no version accepted, $next_minor refused")
EOF
cmake_version() {
  cmake -S "$T/cmake-version" -B "$T/build-version-$1" -DCMAKE_PREFIX_PATH="$2" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
}
check cmake-version-make cmake_version make "$prefix"
check cmake-version-cmake cmake_version cmake "$T/cmake-prefix-shared"

# ---- c. CMake: the source tree, nothing installed --------------------------------
section "c. CMake, add_subdirectory and FetchContent"
# sub_consumer NAME HOW: HOW is the CMake code that brings pcq in.
sub_consumer() {
  local name=$1 how=$2 d=$T/cmake-$1 b=$T/build-$1
  mkdir -p "$d"
  cat > "$d/CMakeLists.txt" <<EOF
# SPDX-License-Identifier: MIT
cmake_minimum_required(VERSION 3.14...3.25)
project(consumer LANGUAGES C)
include(CTest)
$how
if(NOT TARGET pcq::pcq)
  message(FATAL_ERROR "no pcq::pcq")
endif()
add_executable(app "$T/app/app.c")
target_link_libraries(app PRIVATE pcq::pcq)
install(TARGETS app DESTINATION bin)
EOF
  cmake -S "$d" -B "$b" "${cmake_gen[@]}" || return 1
  cmake --build "$b" -j "$jobs" || return 1
  "$b/app" || return 1
  check_needed "$b/app" no || return 1
  # pcq added no tests, no pcqdump and no install rules.
  (cd "$b" && ctest -N) | tee "$T/ctest-n.txt"
  grep -q 'Total Tests: 0' "$T/ctest-n.txt" || { echo "pcq registered tests"; return 1; }
  if find "$b" -name pcqdump -type f | grep .; then echo "^ pcqdump was built"; return 1; fi
  cmake --install "$b" --prefix "$T/inst-$name" || return 1
  expect_eq "installed" "$(cd "$T/inst-$name" && find . -not -type d | sort | tr '\n' ' ')" "./bin/app "
}
check cmake-add-subdirectory sub_consumer add-subdirectory "add_subdirectory(\"$root\" pcq)"
check cmake-fetchcontent-source-dir sub_consumer fetch-dir "include(FetchContent)
FetchContent_Declare(pcq SOURCE_DIR \"$root\")
FetchContent_MakeAvailable(pcq)"
if git rev-parse HEAD >/dev/null 2>&1; then
  rev=$(git rev-parse HEAD)
  [ -n "$(git status --porcelain)" ] && echo "  (FetchContent from git takes the last commit, $rev; the tree has changes not committed)"
  check cmake-fetchcontent-git sub_consumer fetch-git "include(FetchContent)
FetchContent_Declare(pcq GIT_REPOSITORY \"$root\" GIT_TAG $rev)
FetchContent_MakeAvailable(pcq)"
fi

# ---- d. Meson: pcq as a subproject -------------------------------------------------
section "d. Meson, dependency('pcq', fallback: ['pcq', 'pcq_dep'])"
md=$T/meson-app
mkdir -p "$md/subprojects"
cp -a "$T/tree" "$md/subprojects/pcq"
cp "$T/app/app.c" "$md/app.c"
cat > "$md/meson.build" <<EOF
# SPDX-License-Identifier: MIT
project('consumer', 'c', default_options: ['c_std=c99'])
pcq_dep = dependency('pcq', version: '>=$major.$minor', fallback: ['pcq', 'pcq_dep'])
app = executable('app', 'app.c', dependencies: pcq_dep, install: true)
test('app', app)
EOF
meson_consumer() {   # NAME default_library
  local b=$T/build-meson-$1
  meson setup "$b" "$md" --force-fallback-for=pcq -Ddefault_library="$2" --prefix=/opt/app || return 1
  meson compile -C "$b" || return 1
  "$b/app" || return 1
  meson test -C "$b" --no-rebuild --list > "$T/meson-list-$1.txt" || return 1
  expect_eq "tests" "$(grep -v '^$' "$T/meson-list-$1.txt" | tr '\n' ' ')" "app " || return 1
  if find "$b" -name pcqdump -type f | grep .; then echo "^ pcqdump was built"; return 1; fi
  if [ "$2" = shared ]; then check_needed "$b/app" yes || return 1
  else check_needed "$b/app" no || return 1; fi
  # Installed: the program, and the shared library it needs; never the header or pcq.pc.
  meson install -C "$b" --destdir "$T/inst-meson-$1" > /dev/null || return 1
  (cd "$T/inst-meson-$1/opt/app" && find . -not -type d | sort)
  if find "$T/inst-meson-$1" -name pcq_codec.h -o -name pcq.pc | grep .; then echo "^ installed by a subproject"; return 1; fi
  if [ "$2" = shared ] && ! find "$T/inst-meson-$1" -name "$soname" | grep -q .; then
    echo "the shared subproject library was not installed with the program"; return 1
  fi
}
check meson-subproject-shared meson_consumer shared shared
check meson-subproject-static meson_consumer static static

# ---- f. meson test in a Meson build of the repository ----------------------------
section "f. meson test in a Meson build of the repository; its install"
meson_repo() {
  local b=$T/build-meson-repo
  meson setup "$b" "$root" --prefix=/opt/pcq --libdir=lib || return 1
  meson compile -C "$b" || return 1
  meson test -C "$b" --print-errorlogs || return 1
  meson install -C "$b" --destdir "$T/meson-stage" || return 1
  (cd "$T/meson-stage/opt/pcq" && find . -not -type d | sort)
}
check meson-repo-test meson_repo
check meson-install-shlib check_shlib "$T/meson-stage/opt/pcq/lib"
t_meson_pc() {
  local pc=$T/meson-stage/opt/pcq/lib/pkgconfig/pcq.pc
  expect_eq Version "$(sed -n 's/^Version: //p' "$pc")" "$version" || return 1
  expect_eq Libs "$(sed -n 's/^Libs: //p' "$pc")" "-L\${libdir} -lpcq" || return 1
  expect_eq Libs.private "$(sed -n 's/^Libs.private: //p' "$pc")" "-lm" || return 1
  [ -f "$T/meson-stage/opt/pcq/include/pcq_codec.h" ] && [ -x "$T/meson-stage/opt/pcq/bin/pcqdump" ]
}
check meson-install-pc t_meson_pc

# ---- e. pkg-config -----------------------------------------------------------------
section "e. pkg-config, cc \$(pkg-config --cflags --libs pcq)"
pc_consumer() {   # NAME PKG_CONFIG_PATH shared|static
  local out=$T/pc-$1
  export PKG_CONFIG_PATH=$2
  expect_eq modversion "$(pkg-config --modversion pcq)" "$version" || return 1
  case " $(pkg-config --libs pcq) " in *" -lm "*) echo "-lm in --libs (it is private)"; return 1 ;; esac
  case " $(pkg-config --static --libs pcq) " in *" -lm "*) ;; *) echo "no -lm in --static --libs"; return 1 ;; esac
  if [ "$3" = shared ]; then
    echo "cc app.c $(pkg-config --cflags --libs pcq)"
    # shellcheck disable=SC2046
    cc -std=c99 -Wall -Werror -o "$out" "$T/app/app.c" $(pkg-config --cflags --libs pcq) \
      -Wl,-rpath,"$(pkg-config --variable=libdir pcq)" || return 1
    "$out" && check_needed "$out" yes
  else
    echo "cc -static app.c $(pkg-config --static --cflags --libs pcq)"
    # shellcheck disable=SC2046
    cc -static -std=c99 -Wall -Werror -o "$out" "$T/app/app.c" $(pkg-config --static --cflags --libs pcq) || return 1
    "$out" || return 1
    readelf -d "$out" | grep -q 'There is no dynamic section' || { echo "not a static program"; return 1; }
    echo "$out: static"
  fi
}
check pkg-config-make-shared pc_consumer make-shared "$prefix/lib/pkgconfig" shared
check pkg-config-make-static pc_consumer make-static "$prefix/lib/pkgconfig" static
check pkg-config-cmake-shared pc_consumer cmake-shared "$T/cmake-prefix-shared/$cmake_libdir/pkgconfig" shared
unset PKG_CONFIG_PATH

# ---- g. make uninstall ---------------------------------------------------------------
section "g. make uninstall"
t_uninstall() {   # DESTDIR PREFIX
  make --no-print-directory uninstall DESTDIR="$1" PREFIX="$2" || return 1
  local left
  left=$(find "$1$2" -not -type d)
  [ -z "$left" ] || { echo "left behind:"; echo "$left"; return 1; }
  [ ! -e "$1$2/lib/cmake/pcq" ] || { echo "left behind: lib/cmake/pcq/"; return 1; }
  echo "nothing left in $1$2 but the standard directories: $(cd "$1$2" && find . -type d | sort | tr '\n' ' ')"
}
check make-uninstall-destdir t_uninstall "$stage" /opt/pcq
check make-uninstall-prefix t_uninstall "" "$prefix"

# ---- h. SPDX ---------------------------------------------------------------------
section "h. SPDX lines (SPDX_STRICT=${SPDX_STRICT:-1})"
if [ "${SPDX_STRICT:-1}" = 1 ]; then
  check spdx sh ci/check-spdx.sh
else
  sh ci/check-spdx.sh > "$T/logs/spdx-report.log" 2>&1
  echo "  report (not counted; SPDX_STRICT=1 makes it a check): $(tail -n 1 "$T/logs/spdx-report.log")"
fi
t_spdx_tools() {   # on a copy: add-spdx.sh, then check-spdx.sh passes
  local d=$T/spdx-tree
  cp -a "$T/tree" "$d" && cd "$d" || return 1
  git init -q && git add -A || return 1
  sh ci/add-spdx.sh | tail -n 1 || return 1
  sh ci/check-spdx.sh
}
check spdx-add-then-check t_spdx_tools

# ---- ClusterFuzzLite ----------------------------------------------------------------
if [ "${PACKAGING_CFLITE:-1}" = 1 ]; then
  section "ClusterFuzzLite build.sh, emulated (ci/cflite-emulate.sh)"
  check cflite-emulate bash ci/cflite-emulate.sh
  grep -E '^cflite: ' "$T/logs/cflite-emulate.log" | sed 's/^/       /'
fi

echo "packaging: $(( $(date +%s) - start )) s"
echo "packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
