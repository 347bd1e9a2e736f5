/* SPDX-License-Identifier: MIT */
/*
 * test_vectors.c - runs every test vector in vectors/<kind>/<name>.hex
 * (format: vectors/README.md; rules: docs/validation.md).
 *
 * For each vector:
 *   good (a .json beside it): pcq_json_emit output matches the .json field by
 *     field (test/jsoncmp.h); lenient pcq_validate is PCQ_OK with exactly the
 *     diagnostics of the .diag (none without one); strict mode gives
 *     PCQ_ERR_NONCONFORMANT at one of their offsets (PCQ_OK without a .diag);
 *   malformed (a .err: `CODE OFFSET [FIELD]`): pcq_validate, pcq_json_emit
 *     and pcq_reencode all return exactly that code and offset (and field);
 *     the JSON is what was read and an "error" member naming them, matching
 *     field by field a .json beside the .err when there is one;
 *   all of it again with the bytes flush against a PROT_NONE guard page, with
 *     the same results and the same JSON text;
 *   every proper prefix, also flush against the guard page: pcq_validate fails
 *     cleanly (a negative status, offset <= prefix length), or may succeed for
 *     `#! prefix-ok` vectors; pcq_reencode agrees with pcq_validate;
 *   `#! canonical`: pcq_reencode gives the same bytes; with every cap from 0
 *     to len - 1 it returns PCQ_ERR_BUFFER_TOO_SMALL, the size needed, and
 *     writes nothing at or past cap; other good vectors re-encode to a fixed
 *     point (the canonical form of a canonical buffer is itself).
 * Plus each kind on the empty buffer at the guard page.
 *
 * Usage: test_vectors [VECTORS_DIR [SUBSTRING...]]   (default: vectors)
 * Prints one line per failure and `N passed, N failed`; exits 1 on failure.
 */
#define _POSIX_C_SOURCE 200809L
/* readdir() and stat() with 64-bit offsets on 32-bit hosts (fuzz/replay_main.c says why). */
#define _FILE_OFFSET_BITS 64
#define _DEFAULT_SOURCE   1 /* MAP_ANONYMOUS on glibc */

#include "pcq_codec.h"
#include "hexread.h"
#include "pcq_json.h"
#include "jsoncmp.h"
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

#define NELEM(a)  (sizeof(a) / sizeof((a)[0]))
#define MAX_DIAGS 256 /* per vector */
#define MAX_NOTES 3   /* details quoted in one failure line */

/* ------------------------------------------------------------------------ */
/* Names, from the header's own tables (not from the library under test).   */
/* ------------------------------------------------------------------------ */
typedef struct named {
    const char *name;
    int value;
} named;

/* clang-format off */
static const named status_names[] = {
#define PCQ_X_(name, value, text) {#name, value},
    PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
};
/* clang-format on */

/* clang-format off */
static const named diag_names[] = {
#define PCQ_X_(name, value, text) {#name, value},
    PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
};
/* clang-format on */

/* Directory names, in pcq_kind order (vectors/README.md). */
static const char *const kind_dirs[PCQ_KIND_END_] = {
    NULL,   "counterset-info", "counter-info", "strings",     "string",
    "guid", "guids",           "instances",    "identifiers", "data",
};

static const char *name_of(const named *t, size_t n, int value, char *buf, size_t cap)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (t[i].value == value) return t[i].name;
    snprintf(buf, cap, "%d", value);
    return buf;
}

static int value_of(const named *t, size_t n, const char *name, int *out)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (strcmp(t[i].name, name) == 0) {
            *out = t[i].value;
            return 0;
        }
    }
    return -1;
}

/* Status name for messages; 4 rotating buffers so a line can show several. */
static const char *st(int status)
{
    static char bufs[4][24];
    static unsigned k;
    char *b = bufs[k++ % 4];
    return name_of(status_names, NELEM(status_names), status, b, sizeof bufs[0]);
}

static const char *dg(int code)
{
    static char bufs[4][24];
    static unsigned k;
    char *b = bufs[k++ % 4];
    return name_of(diag_names, NELEM(diag_names), code, b, sizeof bufs[0]);
}

/* ------------------------------------------------------------------------ */
/* What is being checked, printed if the program crashes (then the signal   */
/* goes on to the previous handler, e.g. the sanitizer's report).           */
/* ------------------------------------------------------------------------ */
static char crash_context[512] = "startup";
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction crash_old[NELEM(crash_signals)];

static void context(const char *fmt, ...) TL_PRINTF(1, 2);
static void context(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(crash_context, sizeof crash_context, fmt, ap);
    va_end(ap);
}

static void on_crash(int sig, siginfo_t *info, void *uc)
{
    static const char head[] = "\ntest_vectors: crashed while checking ";
    size_t i;
    ssize_t ignored;
    ignored = write(STDERR_FILENO, head, sizeof head - 1);
    ignored = write(STDERR_FILENO, crash_context, strlen(crash_context));
    ignored = write(STDERR_FILENO, "\n", 1);
    (void)ignored;
    for (i = 0; i < NELEM(crash_signals); i++) {
        if (crash_signals[i] != sig) continue;
        if ((crash_old[i].sa_flags & SA_SIGINFO) && crash_old[i].sa_sigaction) {
            crash_old[i].sa_sigaction(sig, info, uc);
        } else if (crash_old[i].sa_handler != SIG_DFL && crash_old[i].sa_handler != SIG_IGN) {
            crash_old[i].sa_handler(sig);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_crash_handler(void)
{
    size_t i;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < NELEM(crash_signals); i++) sigaction(crash_signals[i], &sa, &crash_old[i]);
}

/* ------------------------------------------------------------------------ */
/* Files.                                                                   */
/* ------------------------------------------------------------------------ */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (cap - n < 4096) {
            char *nb = (char *)realloc(buf, cap + 65536);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* "0x18" or "24". */
static int parse_offset(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    if (*s == '\0' || *s == '-' || *s == '+') return -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        v = strtoull(s + 2, &end, 16);
    else
        v = strtoull(s, &end, 10);
    if (*end != '\0' || end == s || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && end == s + 2)) return -1;
    *out = (size_t)v;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* A vector and what is expected of it.                                     */
/* ------------------------------------------------------------------------ */
typedef struct code_at {
    int code;
    size_t offset;
    char what[96]; /* an optional third word: the field the error names */
} code_at;

typedef struct vector {
    char *path; /* "vectors/data/x.hex" */
    char *base; /* "vectors/data/x" */
    pcq_kind kind;
    uint8_t *bytes;
    size_t len;
    int canonical, prefix_ok;
    char *json; /* the .json text, or NULL */
    size_t json_len;
    int has_err;
    code_at err;              /* the .err */
    code_at diags[MAX_DIAGS]; /* the .diag */
    size_t ndiags;
} vector;

/* Failure line for a vector: "FAIL: vectors/data/x.hex: <check>: <what>". */
#define VFAIL(v, check, ...) vfail_(v, check, __VA_ARGS__)
static void vfail_(const vector *v, const char *check, const char *fmt, ...) TL_PRINTF(3, 4);
static void vfail_(const vector *v, const char *check, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tl_fail("%s: %s: %s", v->path, check, msg);
}

/* Reads `CODE OFFSET` lines (blank lines and # comments skipped). Returns the
 * number read, or -1 with a message printed as a failure. */
static int read_code_lines(const vector *v, const char *path, const named *names, size_t nnames, code_at *out,
                           size_t max)
{
    size_t len, n = 0;
    char *text = read_file(path, &len), *line, *save = NULL;
    unsigned lineno = 0;
    if (!text) {
        VFAIL(v, "expectations", "cannot read %s", path);
        return -1;
    }
    if (strlen(text) != len) {
        VFAIL(v, "expectations", "%s contains a NUL byte", path);
        free(text);
        return -1;
    }
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char code[64], off[64], what[96], extra[2];
        int fields;
        lineno++;
        while (*line == ' ' || *line == '\t') line++;
        if (*line == '\0' || *line == '#' || *line == '\r') continue;
        what[0] = '\0';
        fields = sscanf(line, "%63s %63s %95s %1s", code, off, what, extra);
        if (fields < 2 || fields > 3 || n == max || value_of(names, nnames, code, &out[n].code) < 0 ||
            parse_offset(off, &out[n].offset) < 0) {
            VFAIL(v, "expectations", "%s: cannot read `%s` (want `CODE OFFSET [FIELD]`, e.g. `%s 0x18`)",
                  path, line, names[1].name);
            free(text);
            return -1;
        }
        strcpy(out[n].what, what);
        n++;
    }
    free(text);
    return (int)n;
}

/* Reads the .hex, its #! directives and the expectation files. 0 or -1. */
static int load_vector(vector *v)
{
    size_t tlen, cap;
    char *text = read_file(v->path, &tlen), *p, *fname;
    int bad = 0;
    if (!text) {
        VFAIL(v, "load", "cannot read the file");
        return -1;
    }
    /* Directives: lines that start with "#!". */
    for (p = text; *p;) {
        char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n >= 2 && p[0] == '#' && p[1] == '!') {
            char d[128];
            size_t a = 2, b = n;
            while (a < b && (p[a] == ' ' || p[a] == '\t')) a++;
            while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t' || p[b - 1] == '\r')) b--;
            if (b - a >= sizeof d) b = a + sizeof d - 1;
            memcpy(d, p + a, b - a);
            d[b - a] = '\0';
            if (strcmp(d, "canonical") == 0)
                v->canonical = 1;
            else if (strcmp(d, "prefix-ok") == 0)
                v->prefix_ok = 1;
            else if (strcmp(d, "convention: spec") == 0 || strcmp(d, "convention: win32") == 0)
                ; /* read by the encoder from the bytes themselves */
            else {
                VFAIL(v, "load", "unknown directive `#! %s`", d);
                bad = 1;
            }
        }
        p += n;
        if (*p) p++;
    }
    cap = tlen / 2 + 1;
    v->bytes = (uint8_t *)malloc(cap);
    if (!v->bytes || pcq_hex_parse(text, tlen, v->bytes, cap, &v->len) != 0) {
        size_t where = 0, i, line = 1, col = 1, ignored;
        int why = pcq_hex_parse_ex(text, tlen, NULL, 0, &ignored, &where);
        for (i = 0; i < where && i < tlen; i++) {
            col++;
            if (text[i] == '\n') {
                line++;
                col = 1;
            }
        }
        VFAIL(v, "load", "pcq_hex_parse rejects the file at line %zu, column %zu: %s", line, col,
              why == PCQ_HEX_ODD        ? "a run of hex digits of odd length"
              : why == PCQ_HEX_BAD_CHAR ? "not a hex digit, whitespace or comment"
                                        : "cannot parse");
        free(text);
        return -1;
    }
    free(text);

    fname = (char *)malloc(strlen(v->base) + 8);
    if (!fname) return -1;
    sprintf(fname, "%s.json", v->base);
    if (file_exists(fname)) {
        v->json = read_file(fname, &v->json_len);
        if (!v->json) {
            VFAIL(v, "load", "cannot read %s", fname);
            bad = 1;
        }
    }
    sprintf(fname, "%s.err", v->base);
    if (file_exists(fname)) {
        code_at e[2];
        int n = read_code_lines(v, fname, status_names, NELEM(status_names), e, 2);
        if (n == 1) {
            v->has_err = 1;
            v->err = e[0];
        } else {
            if (n >= 0) VFAIL(v, "load", "%s must hold exactly one line `CODE OFFSET`", fname);
            bad = 1;
        }
    }
    sprintf(fname, "%s.diag", v->base);
    if (file_exists(fname)) {
        int n = read_code_lines(v, fname, diag_names, NELEM(diag_names), v->diags, MAX_DIAGS);
        if (n < 0)
            bad = 1;
        else
            v->ndiags = (size_t)n;
        if (n == 0) {
            VFAIL(v, "load", "%s is empty", fname);
            bad = 1;
        }
        if (v->has_err) {
            VFAIL(v, "load", "has both a .err and a .diag");
            bad = 1;
        }
    }
    free(fname);
    if (!v->json && !v->has_err && !bad) {
        VFAIL(v, "load", "has neither a .json (good vector) nor a .err (malformed vector)");
        bad = 1;
    }
    if (v->canonical && v->has_err) {
        VFAIL(v, "load", "`#! canonical` on a malformed vector");
        bad = 1;
    }
    if (!bad) tl_pass();
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* The guard page: n bytes placed so that the byte after them is PROT_NONE.  */
/* ------------------------------------------------------------------------ */
typedef struct guard {
    uint8_t *map;
    size_t map_len;
    uint8_t *end; /* first byte of the PROT_NONE page */
    size_t room;  /* writable bytes before end */
} guard;

static int guard_open(guard *g, size_t n)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096, data;
    void *m;
    data = (n / page + 1) * page;
    g->map_len = data + page;
    m = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    g->map = (uint8_t *)m;
    if (mprotect(g->map + data, page, PROT_NONE) != 0) {
        munmap(m, g->map_len);
        return -1;
    }
    g->end = g->map + data;
    g->room = data;
    return 0;
}

static const uint8_t *guard_place(guard *g, const uint8_t *src, size_t n)
{
    uint8_t *p = g->end - n;
    if (n) memcpy(p, src, n);
    return p;
}

static void guard_close(guard *g)
{
    munmap(g->map, g->map_len);
}

/* ------------------------------------------------------------------------ */
/* Running the library.                                                     */
/* ------------------------------------------------------------------------ */
typedef struct diag_list {
    code_at d[MAX_DIAGS];
    size_t n, dropped, no_what;
} diag_list;

static void collect_diag(void *ctx, const pcq_diag *d)
{
    diag_list *l = (diag_list *)ctx;
    if (!d->what) l->no_what++;
    if (l->n == MAX_DIAGS) {
        l->dropped++;
        return;
    }
    l->d[l->n].code = d->code;
    l->d[l->n].offset = d->offset;
    l->n++;
}

typedef struct result {
    int rc;
    pcq_error err;
    diag_list diags;
} result;

static void run_validate(pcq_kind kind, const uint8_t *buf, size_t len, unsigned flags, result *r)
{
    pcq_opts opts;
    memset(r, 0, sizeof *r);
    memset(&opts, 0, sizeof opts);
    opts.flags = flags;
    opts.on_diag = collect_diag;
    opts.ctx = &r->diags;
    /* scratch for set-wide checks of large sets, as pcqdump gives it */
    opts.scratch_size = len / 8 * PCQ_SCRATCH_PER_ENTRY;
    opts.scratch = len / 8 > PCQ_PAIR_CHECK_MAX ? malloc(opts.scratch_size) : NULL;
    r->err.code = 12345; /* must be overwritten on error */
    r->err.offset = (size_t)-1;
    r->rc = pcq_validate(kind, buf, len, &opts, &r->err);
    free(opts.scratch);
}

/* pcq_json_emit into memory. *out is malloc'd (NUL-terminated). 0 or -1. */
static int run_json(pcq_kind kind, const uint8_t *buf, size_t len, int *rc, pcq_error *err, char **out,
                    size_t *out_len)
{
    FILE *f;
    memset(err, 0, sizeof *err);
    *out = NULL;
    *out_len = 0;
#if defined(_POSIX_VERSION) && _POSIX_VERSION >= 200809L
    {
        char *mem = NULL;
        size_t size = 0;
        f = open_memstream(&mem, &size);
        if (!f) return -1;
        *rc = pcq_json_emit(f, kind, buf, len, NULL, err);
        if (fclose(f) != 0) {
            free(mem);
            return -1;
        }
        *out = mem;
        *out_len = size;
        return 0;
    }
#else
    {
        long size;
        f = tmpfile();
        if (!f) return -1;
        *rc = pcq_json_emit(f, kind, buf, len, NULL, err);
        if (fflush(f) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fclose(f);
            return -1;
        }
        *out = (char *)malloc((size_t)size + 1);
        if (!*out || fread(*out, 1, (size_t)size, f) != (size_t)size) {
            free(*out);
            *out = NULL;
            fclose(f);
            return -1;
        }
        (*out)[size] = '\0';
        *out_len = (size_t)size;
        fclose(f);
        return 0;
    }
#endif
}

static int cmp_code_at(const void *a, const void *b)
{
    const code_at *x = (const code_at *)a, *y = (const code_at *)b;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return 0;
}

static void format_codes(const code_at *c, size_t n, char *buf, size_t cap)
{
    size_t i, used = 0;
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, cap, "none");
        return;
    }
    for (i = 0; i < n && used + 1 < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s 0x%zx", i ? ", " : "", dg(c[i].code), c[i].offset);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* ------------------------------------------------------------------------ */
/* The details of a failure, so that it fits on one line: the first         */
/* MAX_NOTES, then "(and N more)".                                          */
/* ------------------------------------------------------------------------ */
typedef struct notes {
    char text[1536];
    size_t len;
    unsigned long n;
} notes;

static void note(notes *ns, const char *fmt, ...) TL_PRINTF(2, 3);
static void note(notes *ns, const char *fmt, ...)
{
    va_list ap;
    int w;
    if (ns->n++ >= MAX_NOTES || ns->len + 3 >= sizeof ns->text) return;
    if (ns->len) {
        memcpy(ns->text + ns->len, "; ", 3);
        ns->len += 2;
    }
    va_start(ap, fmt);
    w = vsnprintf(ns->text + ns->len, sizeof ns->text - ns->len, fmt, ap);
    va_end(ap);
    if (w > 0) ns->len += (size_t)w < sizeof ns->text - ns->len ? (size_t)w : sizeof ns->text - ns->len - 1;
}

static const char *notes_text(notes *ns)
{
    if (ns->n > MAX_NOTES && ns->len + 32 < sizeof ns->text)
        snprintf(ns->text + ns->len, sizeof ns->text - ns->len, " (and %lu more)", ns->n - MAX_NOTES);
    return ns->text;
}

/* ------------------------------------------------------------------------ */
/* The checks.                                                              */
/* ------------------------------------------------------------------------ */
static void json_diff(void *ctx, const char *path, const char *expected, const char *actual)
{
    note((notes *)ctx, "%s: expected %s, got %s", *path ? path : "(root)", expected,
         actual ? actual : "(missing)");
}

/* The whole set of checks on one placement of a good vector's bytes. The JSON
 * text is returned so the guard run can compare it with the heap run. */
static char *check_good(const vector *v, const uint8_t *buf, const char *where)
{
    char check[64], got_s[4096], want_s[4096];
    int rc;
    pcq_error err;
    char *out = NULL;
    size_t out_len = 0;
    result r;
    size_t i;

    /* JSON, field by field. */
    snprintf(check, sizeof check, "json%s", where);
    context("%s: %s", v->path, check);
    if (run_json(v->kind, buf, v->len, &rc, &err, &out, &out_len) < 0) {
        VFAIL(v, check, "cannot capture pcq_json_emit's output");
    } else if (rc != PCQ_OK) {
        VFAIL(v, check, "pcq_json_emit: expected PCQ_OK, got %s at 0x%zx (%s)", st(rc), err.offset,
              err.what ? err.what : "?");
    } else if (out_len == 0 || out[out_len - 1] != '\n') {
        VFAIL(v, check, "pcq_json_emit's output does not end with a newline");
    } else {
        notes ns;
        char msg[256];
        int diffs;
        memset(&ns, 0, sizeof ns);
        diffs = jsoncmp(v->json, v->json_len, out, out_len, json_diff, &ns, msg, sizeof msg);
        if (diffs < 0)
            VFAIL(v, check, "%s", msg);
        else if (diffs > 0)
            VFAIL(v, check, "%s", notes_text(&ns));
        else
            tl_pass();
    }

    /* Lenient: PCQ_OK and exactly the expected diagnostics. */
    snprintf(check, sizeof check, "diagnostics%s", where);
    context("%s: %s", v->path, check);
    run_validate(v->kind, buf, v->len, 0, &r);
    if (r.rc != PCQ_OK) {
        VFAIL(v, check, "pcq_validate (lenient): expected PCQ_OK, got %s at 0x%zx (%s)", st(r.rc),
              r.err.offset, r.err.what ? r.err.what : "?");
    } else {
        code_at want[MAX_DIAGS];
        int same;
        memcpy(want, v->diags, v->ndiags * sizeof want[0]);
        qsort(want, v->ndiags, sizeof want[0], cmp_code_at);
        qsort(r.diags.d, r.diags.n, sizeof r.diags.d[0], cmp_code_at);
        same = r.diags.n == v->ndiags && r.diags.dropped == 0;
        for (i = 0; same && i < v->ndiags; i++) same = cmp_code_at(&want[i], &r.diags.d[i]) == 0;
        format_codes(want, v->ndiags, want_s, sizeof want_s);
        format_codes(r.diags.d, r.diags.n, got_s, sizeof got_s);
        if (!same)
            VFAIL(v, check, "expected {%s}, got {%s}%s", want_s, got_s, r.diags.dropped ? " and more" : "");
        else if (r.diags.no_what)
            VFAIL(v, check, "%zu diagnostic%s without a `what`", r.diags.no_what,
                  r.diags.no_what == 1 ? "" : "s");
        else
            tl_pass();
    }

    /* Strict: the first diagnostic becomes the error. */
    snprintf(check, sizeof check, "strict%s", where);
    context("%s: %s", v->path, check);
    run_validate(v->kind, buf, v->len, PCQ_STRICT, &r);
    if (v->ndiags == 0) {
        if (r.rc != PCQ_OK)
            VFAIL(v, check, "expected PCQ_OK, got %s at 0x%zx (%s)", st(r.rc), r.err.offset,
                  r.err.what ? r.err.what : "?");
        else
            tl_pass();
    } else {
        int at_diag = 0;
        for (i = 0; i < v->ndiags; i++) at_diag |= r.err.offset == v->diags[i].offset;
        format_codes(v->diags, v->ndiags, want_s, sizeof want_s);
        if (r.rc != PCQ_ERR_NONCONFORMANT || r.err.code != PCQ_ERR_NONCONFORMANT || !at_diag)
            VFAIL(v, check,
                  "expected PCQ_ERR_NONCONFORMANT at one of {%s}, got %s (err.code %s) "
                  "at 0x%zx",
                  want_s, st(r.rc), st(r.err.code), r.err.offset);
        else
            tl_pass();
    }
    return out;
}

/* A good data vector: every block's pcq_block_values, after a successful
 * decode, gives the one value of a type 1 block (its block.value), the
 * dwCounters values of a type 2 block and nothing for other types, and never
 * fails (docs/security.md, 9). Regression: a type 1 block's iterator used to
 * fail with COUNT_MISMATCH. */
static void check_block_values(const vector *v, const uint8_t *buf, const char *where)
{
    char check[64];
    pcq_data d;
    pcq_iter blocks, vals;
    pcq_block b;
    pcq_value val;
    uint32_t k = 0, n, want;
    int rc, bad = 0;

    if (v->kind != PCQ_KIND_DATA) return;
    snprintf(check, sizeof check, "block-values%s", where);
    context("%s: %s", v->path, check);
    if ((rc = pcq_decode_data(buf, v->len, NULL, &d, NULL)) != PCQ_OK) {
        VFAIL(v, check, "pcq_decode_data: %s", st(rc));
        return;
    }
    pcq_data_blocks(&d, &blocks);
    while (!bad && pcq_blocks_next(&blocks, &b) == 1) {
        want = b.type == PCQ_PERF_SINGLE_COUNTER ? 1 : b.type == PCQ_PERF_MULTI_COUNTERS ? b.num_counters : 0;
        pcq_block_values(&d, &b, &vals);
        for (n = 0; (rc = pcq_values_next(&vals, &val)) == 1; n++)
            if (b.type == PCQ_PERF_SINGLE_COUNTER && val.offset != b.value.offset) break;
        if (rc != 0 || n != want) {
            VFAIL(v, check, "block %u (type %u at 0x%zx): %u values then %s at 0x%zx, expected %u", k, b.type,
                  b.offset, n, rc == 1 ? "a different value" : st(rc), vals.err.offset, want);
            bad = 1;
        }
        k++;
    }
    if (!bad) tl_pass();
}

/* The JSON of a malformed buffer: what was read, in the usual shape, then
 * "error": {"code", "offset", "field", "message"} naming the .err. */
static void check_error_json(const vector *v, const char *check, const char *out, size_t out_len,
                             const pcq_error *err)
{
    json_doc doc;
    char msg[160], want[96];
    const json_pair *code, *off, *field, *kind;

    memset(&doc, 0, sizeof doc);
    if (json_flatten(out, out_len, &doc, msg, sizeof msg) != 0) {
        VFAIL(v, check, "pcq_json_emit's output is not JSON: %s", msg);
        return;
    }
    code = json_doc_find(&doc, "error.code");
    off = json_doc_find(&doc, "error.offset");
    field = json_doc_find(&doc, "error.field");
    kind = json_doc_find(&doc, "kind");
    snprintf(want, sizeof want, "\"%s\"", st(v->err.code)); /* as the JSON shows them */
    snprintf(msg, sizeof msg, "%zu", v->err.offset);
    if (!code || strcmp(code->shown, want) != 0 || !off || strcmp(off->shown, msg) != 0)
        VFAIL(v, check, "JSON error member: code %s, offset %s; expected %s 0x%zx",
              code ? code->shown : "missing", off ? off->shown : "missing", st(v->err.code), v->err.offset);
    else if (!field || field->value[0] != 's' || !err->what || strcmp(field->value + 1, err->what) != 0)
        VFAIL(v, check, "JSON error.field %s; expected \"%s\"", field ? field->shown : "missing",
              err->what ? err->what : "?");
    else if (!kind || !json_doc_find(&doc, "error.message"))
        VFAIL(v, check, "JSON without kind or error.message");
    else
        tl_pass();
    json_doc_free(&doc);
}

/* One placement of a malformed vector: validate and JSON give the .err. */
static void check_bad(const vector *v, const uint8_t *buf, const char *where)
{
    char check[64];
    result r;
    int rc;
    pcq_error err;
    char *out = NULL;
    size_t out_len = 0;

    snprintf(check, sizeof check, "error%s", where);
    context("%s: %s", v->path, check);
    run_validate(v->kind, buf, v->len, 0, &r);
    if (r.rc != v->err.code || r.err.code != v->err.code || r.err.offset != v->err.offset)
        VFAIL(v, check, "expected %s 0x%zx, got %s 0x%zx (err.code %s, %s)", st(v->err.code), v->err.offset,
              st(r.rc), r.err.offset, st(r.err.code), r.err.what ? r.err.what : "no `what`");
    else if (!r.err.what)
        VFAIL(v, check, "the error has no `what`");
    else if (v->err.what[0] && strcmp(v->err.what, r.err.what) != 0)
        VFAIL(v, check, "the error names %s, expected %s", r.err.what, v->err.what);
    else
        tl_pass();

    snprintf(check, sizeof check, "json error%s", where);
    context("%s: %s", v->path, check);
    if (run_json(v->kind, buf, v->len, &rc, &err, &out, &out_len) < 0)
        VFAIL(v, check, "cannot capture pcq_json_emit's output");
    else if (rc != v->err.code || err.offset != v->err.offset)
        VFAIL(v, check, "pcq_json_emit: expected %s 0x%zx, got %s 0x%zx", st(v->err.code), v->err.offset,
              st(rc), err.offset);
    else
        check_error_json(v, check, out, out_len, &err);
    if (v->json && out) { /* what was read before the error, field by field */
        notes ns;
        char msg[256];
        int diffs;
        memset(&ns, 0, sizeof ns);
        snprintf(check, sizeof check, "partial json%s", where);
        diffs = jsoncmp(v->json, v->json_len, out, out_len, json_diff, &ns, msg, sizeof msg);
        if (diffs < 0)
            VFAIL(v, check, "%s", msg);
        else if (diffs > 0)
            VFAIL(v, check, "%s", notes_text(&ns));
        else
            tl_pass();
    }
    free(out);
}

/* Every proper prefix, flush against the guard page. */
static void check_prefixes(const vector *v, guard *g)
{
    size_t n;
    notes ns;
    memset(&ns, 0, sizeof ns);
    for (n = 0; n < v->len; n++) {
        const uint8_t *p = guard_place(g, v->bytes, n);
        result r;
        const char *why = NULL;
        context("%s: prefix of %zu bytes (guard page)", v->path, n);
        run_validate(v->kind, p, n, 0, &r);
        if (r.rc == PCQ_OK) {
            if (!v->prefix_ok && !v->has_err) why = "expected an error, got PCQ_OK";
        } else if (r.rc > 0) {
            why = "a positive status";
        } else if (r.err.code != r.rc) {
            why = "err.code differs from the returned status";
        } else if (r.err.offset > n) {
            why = "the error offset is past the end of the prefix";
        }
        if (why) {
            if (r.rc == PCQ_OK)
                note(&ns, "%zu bytes: %s", n, why);
            else
                note(&ns, "%zu bytes: %s: %s (err.code %s) at 0x%zx", n, why, st(r.rc), st(r.err.code),
                     r.err.offset);
            continue;
        }
#ifndef PCQ_NO_ENCODER
        {
            size_t out_len = 0;
            pcq_error err2;
            uint8_t dummy[1];
            int rc2 = pcq_reencode(v->kind, p, n, dummy, 0, &out_len, &err2);
            if ((r.rc != PCQ_OK && (rc2 != r.rc || err2.offset != r.err.offset)) ||
                (r.rc == PCQ_OK && rc2 != PCQ_ERR_BUFFER_TOO_SMALL && rc2 != PCQ_OK))
                note(&ns, "%zu bytes: pcq_reencode gives %s at 0x%zx, pcq_validate %s at 0x%zx", n, st(rc2),
                     err2.offset, st(r.rc), r.err.offset);
        }
#endif
    }
    if (ns.n)
        VFAIL(v, "prefixes", "%lu of %zu proper prefixes misbehave%s: %s", ns.n, v->len,
              v->prefix_ok || v->has_err ? "" : " (is the vector `#! prefix-ok`?)", notes_text(&ns));
    else
        tl_pass();
}

#ifndef PCQ_NO_ENCODER
/* Re-encodes src into a fresh exact-size buffer. Returns the bytes (malloc'd)
 * or NULL after printing a failure. */
static uint8_t *reencode_alloc(const vector *v, const char *check, const uint8_t *src, size_t len,
                               size_t *out_len)
{
    size_t need = 0, got = 0;
    pcq_error err;
    uint8_t *dst;
    /* dst NULL is a sizing pass: PCQ_OK and the size (pcq_writer_finish). */
    int rc = pcq_reencode(v->kind, src, len, NULL, 0, &need, &err);
    if (rc != PCQ_OK) {
        VFAIL(v, check,
              "sizing pass (dst NULL): expected PCQ_OK and the size, got %s at 0x%zx "
              "(%s)",
              st(rc), err.offset, err.what ? err.what : "?");
        return NULL;
    }
    dst = (uint8_t *)malloc(need + 1);
    if (!dst) return NULL;
    rc = pcq_reencode(v->kind, src, len, dst, need, &got, &err);
    if (rc != PCQ_OK || got != need) {
        VFAIL(v, check,
              "into the %zu bytes the sizing pass asked for: expected PCQ_OK and %zu "
              "bytes, got %s and %zu",
              need, need, st(rc), got);
        free(dst);
        return NULL;
    }
    *out_len = got;
    return dst;
}

static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n && a[i] == b[i]; i++)
        ;
    return i;
}

/* Canonical vectors: the same bytes back, and every too-small cap. */
static void check_canonical(const vector *v)
{
    const uint8_t canary = 0xA5;
    size_t slack = 64, cap, out_len = 0;
    notes ns;
    uint8_t *dst = (uint8_t *)malloc(v->len + slack);
    pcq_error err;
    int rc;
    if (!dst) return;

    context("%s: reencode", v->path);
    memset(dst, canary, v->len + slack);
    rc = pcq_reencode(v->kind, v->bytes, v->len, dst, v->len + slack, &out_len, &err);
    if (rc != PCQ_OK)
        VFAIL(v, "reencode", "expected PCQ_OK, got %s at 0x%zx", st(rc), err.offset);
    else if (out_len != v->len)
        VFAIL(v, "reencode", "expected %zu bytes, got %zu", v->len, out_len);
    else if (memcmp(dst, v->bytes, v->len) != 0) {
        size_t i = first_difference(dst, v->bytes, v->len);
        VFAIL(v, "reencode", "bytes differ from offset 0x%zx: expected %02x, got %02x", i, v->bytes[i],
              dst[i]);
    } else {
        size_t i;
        for (i = v->len; i < v->len + slack && dst[i] == canary; i++)
            ;
        if (i < v->len + slack)
            VFAIL(v, "reencode", "wrote past the %zu bytes it reported, at 0x%zx", v->len, i);
        else
            tl_pass();
    }

    memset(&ns, 0, sizeof ns);
    for (cap = 0; cap < v->len; cap++) {
        size_t i;
        const char *why = NULL;
        context("%s: reencode with cap %zu", v->path, cap);
        memset(dst, canary, v->len + slack);
        out_len = 0;
        rc = pcq_reencode(v->kind, v->bytes, v->len, dst, cap, &out_len, &err);
        if (rc != PCQ_ERR_BUFFER_TOO_SMALL)
            why = "expected PCQ_ERR_BUFFER_TOO_SMALL";
        else if (out_len != v->len)
            why = "wrong size needed";
        for (i = cap; !why && i < v->len + slack; i++)
            if (dst[i] != canary) why = "wrote at or past cap";
        if (why)
            note(&ns, "cap %zu: %s: got %s, size needed %zu (expected %zu)", cap, why, st(rc), out_len,
                 v->len);
    }
    if (ns.n)
        VFAIL(v, "reencode caps", "%lu of %zu too-small caps misbehave: %s", ns.n, v->len, notes_text(&ns));
    else
        tl_pass();

    context("%s: reencode sizing pass", v->path);
    out_len = 0;
    rc = pcq_reencode(v->kind, v->bytes, v->len, NULL, 0, &out_len, &err);
    if (rc != PCQ_OK || out_len != v->len)
        VFAIL(v, "reencode sizing pass", "dst NULL: expected PCQ_OK and %zu, got %s and %zu", v->len, st(rc),
              out_len);
    else
        tl_pass();
    free(dst);
}

/* Other good vectors: re-encoding is valid and a fixed point. */
static void check_fixed_point(const vector *v)
{
    size_t n1 = 0, n2 = 0;
    uint8_t *once, *twice;
    pcq_error err;
    int rc;
    context("%s: reencode (fixed point)", v->path);
    once = reencode_alloc(v, "reencode", v->bytes, v->len, &n1);
    if (!once) return;
    rc = pcq_validate(v->kind, once, n1, NULL, &err);
    if (rc != PCQ_OK) {
        VFAIL(v, "reencode", "its canonical form does not validate: %s at 0x%zx (%s)", st(rc), err.offset,
              err.what ? err.what : "?");
        free(once);
        return;
    }
    twice = reencode_alloc(v, "reencode", once, n1, &n2);
    if (twice) {
        if (n2 != n1)
            VFAIL(v, "reencode", "not a fixed point: %zu bytes, then %zu", n1, n2);
        else if (memcmp(once, twice, n1) != 0)
            VFAIL(v, "reencode", "not a fixed point: differs from offset 0x%zx",
                  first_difference(once, twice, n1));
        else
            tl_pass();
    }
    free(once);
    free(twice);
}

static void check_reencode_error(const vector *v)
{
    uint8_t dst[64];
    size_t out_len = 0;
    pcq_error err;
    int rc;
    context("%s: reencode error", v->path);
    rc = pcq_reencode(v->kind, v->bytes, v->len, dst, sizeof dst, &out_len, &err);
    if (rc != v->err.code || err.offset != v->err.offset)
        VFAIL(v, "reencode error", "expected %s 0x%zx, got %s 0x%zx", st(v->err.code), v->err.offset, st(rc),
              err.offset);
    else
        tl_pass();
}
#endif /* PCQ_NO_ENCODER */

static void run_vector(vector *v)
{
    guard g;
    context("%s: load", v->path);
    if (load_vector(v) < 0) return;
    if (guard_open(&g, v->len) < 0) {
        VFAIL(v, "guard", "mmap/mprotect failed");
        return;
    }
    if (v->has_err) {
        check_bad(v, v->bytes, "");
        check_bad(v, guard_place(&g, v->bytes, v->len), " (guard page)");
#ifndef PCQ_NO_ENCODER
        check_reencode_error(v);
#endif
    } else {
        char *heap = check_good(v, v->bytes, "");
        char *flush = check_good(v, guard_place(&g, v->bytes, v->len), " (guard page)");
        check_block_values(v, v->bytes, "");
        if (heap && flush && strcmp(heap, flush) != 0)
            VFAIL(v, "json (guard page)", "the JSON text differs from the heap run's");
        free(heap);
        free(flush);
#ifndef PCQ_NO_ENCODER
        if (v->canonical)
            check_canonical(v);
        else
            check_fixed_point(v);
#endif
    }
    check_prefixes(v, &g);
    guard_close(&g);
}

/* ------------------------------------------------------------------------ */
/* Finding the vectors.                                                     */
/* ------------------------------------------------------------------------ */
typedef struct vec_list {
    vector *v;
    size_t n, cap;
} vec_list;

static int cmp_vector(const void *a, const void *b)
{
    return strcmp(((const vector *)a)->path, ((const vector *)b)->path);
}

static char *join(const char *a, const char *b)
{
    char *s = (char *)malloc(strlen(a) + strlen(b) + 2);
    if (s) sprintf(s, "%s/%s", a, b);
    return s;
}

static int wanted(const char *path, int argc, char **argv)
{
    int i;
    if (argc <= 2) return 1;
    for (i = 2; i < argc; i++)
        if (strstr(path, argv[i])) return 1;
    return 0;
}

/* Adds every <root>/<kind>/<name>.hex; fails on expectation files without a
 * .hex and on directories that name no kind. */
static void find_vectors(const char *root, vec_list *list, int argc, char **argv)
{
    DIR *d = opendir(root), *k;
    struct dirent *e, *f;
    if (!d) {
        tl_fail("%s: cannot open the vectors directory", root);
        return;
    }
    /* errno tells a listing that failed from one that ended (POSIX readdir). */
    while ((errno = 0, e = readdir(d)) != NULL) {
        char *dir;
        struct stat sb;
        int kind;
        if (e->d_name[0] == '.') continue;
        dir = join(root, e->d_name);
        if (!dir || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            free(dir);
            continue;
        }
        for (kind = 1; kind < PCQ_KIND_END_; kind++)
            if (strcmp(kind_dirs[kind], e->d_name) == 0) break;
        if (kind == PCQ_KIND_END_) {
            tl_fail("%s: directory names no buffer kind", dir);
            free(dir);
            continue;
        }
        k = opendir(dir);
        if (!k) tl_fail("%s: cannot open: %s", dir, strerror(errno));
        while (k && (errno = 0, f = readdir(k)) != NULL) {
            char *path;
            if (f->d_name[0] == '.') continue;
            path = join(dir, f->d_name);
            if (!path) continue;
            if (ends_with(path, ".hex")) {
                vector *v;
                if (!wanted(path, argc, argv)) {
                    free(path);
                    continue;
                }
                if (list->n == list->cap) {
                    size_t ncap = list->cap ? 2 * list->cap : 64;
                    vector *nv = (vector *)realloc(list->v, ncap * sizeof *nv);
                    if (!nv) {
                        free(path);
                        continue;
                    }
                    list->v = nv;
                    list->cap = ncap;
                }
                v = &list->v[list->n++];
                memset(v, 0, sizeof *v);
                v->path = path;
                v->base = (char *)malloc(strlen(path) - 3);
                if (v->base) {
                    memcpy(v->base, path, strlen(path) - 4);
                    v->base[strlen(path) - 4] = '\0';
                }
                v->kind = (pcq_kind)kind;
            } else if (ends_with(path, ".json") || ends_with(path, ".err") || ends_with(path, ".diag")) {
                char *hex = (char *)malloc(strlen(path) + 5);
                if (hex) {
                    strcpy(hex, path);
                    strcpy(strrchr(hex, '.'), ".hex");
                    if (!file_exists(hex)) tl_fail("%s: no %s beside it", path, strrchr(hex, '/') + 1);
                }
                free(hex);
                free(path);
            } else {
                free(path);
            }
        }
        if (k && errno != 0) tl_fail("%s: listing failed: %s", dir, strerror(errno));
        if (k) closedir(k);
        free(dir);
    }
    if (errno != 0) tl_fail("%s: listing failed: %s", root, strerror(errno));
    closedir(d);
    if (list->n > 1) qsort(list->v, list->n, sizeof *list->v, cmp_vector);
}

/* The library's kind names agree with the directory names. */
static void check_kind_names(void)
{
    int kind;
    for (kind = 1; kind < PCQ_KIND_END_; kind++) {
        const char *name = pcq_kind_name((pcq_kind)kind);
        tl_check(name && strcmp(name, kind_dirs[kind]) == 0 &&
                     pcq_kind_from_name(kind_dirs[kind]) == (pcq_kind)kind,
                 "pcq_kind_name(%d): expected \"%s\" (and back), got \"%s\"", kind, kind_dirs[kind],
                 name ? name : "(null)");
    }
}

/* Each kind on the empty buffer at the guard page: no crash, a clean result. */
static void check_empty(void)
{
    guard g;
    int kind;
    if (guard_open(&g, 0) < 0) {
        tl_fail("empty buffer: mmap/mprotect failed");
        return;
    }
    for (kind = 1; kind < PCQ_KIND_END_; kind++) {
        result r;
        context("%s: the empty buffer (guard page)", kind_dirs[kind]);
        run_validate((pcq_kind)kind, g.end, 0, 0, &r);
        tl_check(r.rc == PCQ_OK || (r.rc < 0 && r.err.code == r.rc && r.err.offset == 0),
                 "%s: empty buffer at the guard page: got %s at 0x%zx", kind_dirs[kind], st(r.rc),
                 r.err.offset);
    }
    guard_close(&g);
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : "vectors";
    vec_list list = {NULL, 0, 0};
    size_t i, good = 0, bad = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    install_crash_handler();
    check_kind_names();
    check_empty();
    find_vectors(root, &list, argc, argv);
    if (list.n == 0) tl_fail("%s: no vectors found", root);
    for (i = 0; i < list.n; i++) {
        vector *v = &list.v[i];
        run_vector(v);
        if (v->has_err)
            bad++;
        else if (v->json)
            good++;
        free(v->path);
        free(v->base);
        free(v->bytes);
        free(v->json);
    }
    free(list.v);
    printf("test_vectors: %zu vectors in %s (%zu good, %zu malformed)\n", list.n, root, good, bad);
    return tl_finish();
}
