/*
 * xio/alloc.h - the allocator every xio library allocates through (part of
 * libxio_auth, the shared base).
 *
 * Every allocation xio makes goes through xio_malloc, xio_calloc, xio_realloc,
 * xio_strdup and xio_strndup, and every release through xio_free. By default they are
 * the C library's malloc family. A program may install its own allocator once, before
 * any other xio call (xio_alloc_set); tests use it to fail the N-th allocation and
 * check that every path ends in a clean XIO_ENOMEM with nothing leaked.
 *
 * Ownership: memory that xio hands out and documents as released "with free()" is
 * released with xio_free; while the default allocator is in place that is free().
 *
 * libcurl, libxml2 and cJSON allocate through their own hooks, which xio leaves to the
 * program: xio_blob_share_allocator (<xio/blob_alloc.h>) hands them this allocator
 * when a program asks.
 */
#ifndef XIO_ALLOC_H
#define XIO_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An allocator: the four functions with the C library's contracts (malloc(0) may
 *  return NULL or a unique pointer; free(NULL) does nothing; realloc(NULL, n) is
 *  malloc(n)). All four must be thread-safe: xio allocates on its own threads. */
typedef struct xio_allocator {
  void *(*malloc_fn)(size_t n);
  void *(*calloc_fn)(size_t count, size_t size);
  void *(*realloc_fn)(void *p, size_t n);
  void (*free_fn)(void *p);
} xio_allocator;

/**
 * Makes `a` (copied; every member must be set) the allocator of every xio library,
 * or restores the C library's when `a` is NULL. Not thread-safe: call it before any
 * other xio call, and release everything xio handed out before changing it again
 * (memory goes back to the allocator that made it).
 */
void xio_alloc_set(const xio_allocator *a);

/** The allocator in use (the C library's unless xio_alloc_set chose another). */
xio_allocator xio_alloc_get(void);

/** malloc through the current allocator. NULL on out-of-memory. */
void *xio_malloc(size_t n);

/** calloc through the current allocator (zeroed). NULL on out-of-memory or when
 *  count * size overflows. */
void *xio_calloc(size_t count, size_t size);

/** realloc through the current allocator. On NULL (out-of-memory) `p` is untouched
 *  and still owned by the caller. */
void *xio_realloc(void *p, size_t n);

/** A copy of `s` (xio_free). NULL on out-of-memory or when `s` is NULL. */
char *xio_strdup(const char *s);

/** A NUL-terminated copy of at most `n` bytes of `s` (xio_free). NULL on
 *  out-of-memory or when `s` is NULL. */
char *xio_strndup(const char *s, size_t n);

/** How many allocations through the functions above returned NULL on the calling
 *  thread so far. A caller of a library that reports out-of-memory as bad input
 *  (cJSON, libxml2: their allocations come here once xio_blob_share_allocator has
 *  run) compares the count before and after to tell the two apart. Never fails. */
unsigned long xio_alloc_failures(void);

/** Releases what the xio_* allocation functions returned. `p` may be NULL. */
void xio_free(void *p);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ALLOC_H */
