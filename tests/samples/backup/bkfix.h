/*
 * bkfix.h - what the backup tests share: a context on the emulator to change blobs
 * the way an engine would (writes, clears, growth, shrink), snapshots taken and
 * read back with `xio get URL?snapshot=ID` as the reference a restore must equal,
 * runs of `xio backup` / `xio restore` with --json, and unfinished links left by a
 * backup whose read the fault proxy refuses.
 */
#ifndef XIO_TEST_BKFIX_H
#define XIO_TEST_BKFIX_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <xio/xio.h>

#include "clirun.h"

#define KiB ((uint64_t)1024)
#define MiB (1024 * KiB)

/** A context on the emulator (the dev account), made on first use. */
xio_ctx *bkfix_ctx(void);

/** A fresh blob URL in a fresh container. */
void bkfix_url(const char *name, char *url, size_t size);

/** Opens `url` exclusively (created at `size` when missing). */
xio_file *bkfix_open(const char *url, uint64_t size);

/** Writes `len` random bytes (from `seed`, never all zero) at `off`. */
void bkfix_write(xio_file *f, uint64_t off, uint64_t len, uint64_t seed);

/** Takes a snapshot of `f`; its id into `id` (64 bytes). */
void bkfix_snapshot(xio_file *f, char *id);

/** Downloads snapshot `id` of `url` to the local `path` (the reference). */
void bkfix_get_snapshot(const char *url, const char *id, const char *path);

/** Runs `xio --json backup URL DIR [extra]` (extra may be NULL), expects exit 0 and
 *  returns its JSON (the caller deletes it). */
cJSON *bkfix_backup(const char *url, const char *dir, const char *extra);

/** Runs `xio --json restore DIR@ID TARGET` (ID NULL: the newest), expects exit 0. */
void bkfix_restore(const char *dir, const char *id, const char *target);

/** The URL of blob `direct` (from bkfix_url) through the fault proxy (cliproxy.h);
 *  runs on it go through XIO_PROXIED. */
void bkfix_proxied(const char *direct, char *out, size_t size);

/** Leaves in `dir` an unfinished link of snapshot `id` of `proxied`: a backup
 *  through the proxy whose first read is refused (403), which fails after it
 *  described the link in DIR/pending.json. */
void bkfix_unfinished(const char *proxied, const char *dir, const char *id);

/** 1 when `path` exists. */
int bkfix_exists(const char *path);

#endif
