/*
 * alloc.c - the allocation seam of every xio library (see <xio/alloc.h>): one
 * process-wide allocator, the C library's unless a program installs its own before
 * its first xio call. This is the one piece of global state in libxio_auth; it is set
 * by the program, never by xio itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

static const xio_allocator libc_allocator = {malloc, calloc, realloc, free};

static xio_allocator current = {malloc, calloc, realloc, free};

/* Allocations refused on this thread, so that a caller of a library that cannot
 * tell out-of-memory from bad input (cJSON, libxml2) can tell them apart. */
static _Thread_local unsigned long refused;

static void *counted(void *p) {
  if (!p) refused++;
  return p;
}

unsigned long xio_alloc_failures(void) { return refused; }

void xio_alloc_set(const xio_allocator *a) { current = a ? *a : libc_allocator; }

xio_allocator xio_alloc_get(void) { return current; }

void *xio_malloc(size_t n) { return counted(current.malloc_fn(n)); }

void *xio_calloc(size_t count, size_t size) {
  if (size && count > (size_t)-1 / size) return counted(NULL);
  return counted(current.calloc_fn(count, size));
}

void *xio_realloc(void *p, size_t n) {
  void *q = current.realloc_fn(p, n);
  return n ? counted(q) : q;
}

void xio_free(void *p) {
  if (p) current.free_fn(p);
}

char *xio_strndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *d = counted(current.malloc_fn(len + 1));
  if (!d) return NULL;
  memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

char *xio_strdup(const char *s) { return s ? xio_strndup(s, (size_t)-1) : NULL; }
