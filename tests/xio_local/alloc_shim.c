/*
 * alloc_shim.c - a fault-injecting wrapper around malloc and calloc: the test binary
 * links with --wrap=malloc,--wrap=calloc, so the file layer (linked in statically)
 * allocates through these. While lt_alloc_fail is on for a thread, that thread's
 * small allocations (at most LT_ALLOC_SMALL bytes: job records, not buffers or
 * request states) fail, the way they would with memory exhausted.
 */
#include <stddef.h>

#include "fixture.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);

static _Thread_local int failing;

void lt_alloc_fail(int on) { failing = on; }

void *__wrap_malloc(size_t n) { return failing && n <= LT_ALLOC_SMALL ? NULL : __real_malloc(n); }

void *__wrap_calloc(size_t k, size_t n) {
  return failing && k * n <= LT_ALLOC_SMALL ? NULL : __real_calloc(k, n);
}
