/*
 * alloc_shim.c - a fault-injecting allocator installed through xio's allocation seam
 * (<xio/alloc.h>): while lt_alloc_fail is on for a thread, that thread's small
 * allocations (at most LT_ALLOC_SMALL bytes: job records, not buffers or request
 * states) fail, the way they would with memory exhausted. Other threads, and larger
 * blocks, get the C library's.
 */
#include <stdlib.h>

#include <xio/alloc.h>

#include "fixture.h"

static _Thread_local int failing;

static void *shim_malloc(size_t n) { return failing && n <= LT_ALLOC_SMALL ? NULL : malloc(n); }

static void *shim_calloc(size_t k, size_t n) {
  return failing && k * n <= LT_ALLOC_SMALL ? NULL : calloc(k, n);
}

static void *shim_realloc(void *p, size_t n) {
  return failing && n <= LT_ALLOC_SMALL ? NULL : realloc(p, n);
}

/* Installed before main, so before any xio call or thread. */
__attribute__((constructor)) static void install(void) {
  static const xio_allocator shim = {shim_malloc, shim_calloc, shim_realloc, free};
  xio_alloc_set(&shim);
}

void lt_alloc_fail(int on) { failing = on; }
