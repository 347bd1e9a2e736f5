/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - a standalone main for any fuzz target: runs
 * LLVMFuzzerTestOneInput on every file named on the command line and on every
 * regular file inside every directory named (not recursive). Built with any C
 * compiler, usually with -fsanitize=address,undefined, so `make fuzz-replay`
 * replays the corpora and past crashers without libFuzzer.
 *
 * Each input is copied to a heap block of exactly its size, so a read past
 * its end is caught by ASan (or valgrind) as libFuzzer would catch it.
 * Prints `replayed N inputs` and exits 0; a broken property aborts.
 * With PCQ_REPLAY_DIGEST=FILE it appends "<digest> <path>" for every input:
 * the decoders' results in short (fz_digest_value), to compare builds.
 */
#define _POSIX_C_SOURCE 200809L
/* 64-bit inode numbers and directory offsets in readdir() and stat() on
 * 32-bit hosts. Without it readdir() fails with EOVERFLOW where a value does
 * not fit in 32 bits: under qemu-i386 ext4 sees a 64-bit process and gives
 * its hashed directories 64-bit offsets, and a listing ends early. */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern uint64_t fz_digest_value; /* fuzz/fz_walk.c */

static unsigned long replayed;
static FILE *digests; /* PCQ_REPLAY_DIGEST: one line per input, "<digest> <path>" */

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (;;) {
        if (cap - len < 4096) {
            uint8_t *q;
            cap = cap ? cap * 2 : 8192;
            q = (uint8_t *)realloc(buf, cap);
            if (!q) {
                fprintf(stderr, "replay: out of memory\n");
                exit(2);
            }
            buf = q;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    fclose(f);
    {
        /* Exactly len bytes (at least 1 to have a pointer). */
        uint8_t *exact = (uint8_t *)malloc(len ? len : 1);
        if (!exact) exit(2);
        if (len) memcpy(exact, buf, len);
        free(buf);
        if (getenv("PCQ_REPLAY_VERBOSE")) fprintf(stderr, "replay: %s\n", path);
        fz_digest_value = 0;
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        if (digests)
            fprintf(digests, "%08lx%08lx %s\n", (unsigned long)(fz_digest_value >> 32),
                    (unsigned long)(fz_digest_value & 0xFFFFFFFFu), path);
    }
    replayed++;
    return 0;
}

static int run_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *ent;
    int bad = 0;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) return run_file(path);
    d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    /* errno tells a listing that failed from one that ended (POSIX readdir). */
    while ((errno = 0, ent = readdir(d)) != NULL) {
        char *full;
        size_t n;
        if (ent->d_name[0] == '.') continue; /* ., .., .gitkeep */
        n = strlen(path) + strlen(ent->d_name) + 2;
        full = (char *)malloc(n);
        if (!full) exit(2);
        snprintf(full, n, "%s/%s", path, ent->d_name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) bad |= run_file(full);
        free(full);
    }
    if (errno != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        bad = 1;
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    int i, bad = 0;
    const char *dpath = getenv("PCQ_REPLAY_DIGEST");
    if (dpath && *dpath && !(digests = fopen(dpath, "a"))) {
        fprintf(stderr, "replay: %s: %s\n", dpath, strerror(errno));
        return 2;
    }
    for (i = 1; i < argc; i++) bad |= run_path(argv[i]);
    if (digests) fclose(digests);
    printf("%s: replayed %lu inputs\n", argc > 0 ? argv[0] : "replay", replayed);
    return bad;
}
