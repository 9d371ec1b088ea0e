/*
 * tracked_int.h - a tracked set: the one link between a context and the files open
 * in it. The context owns the set; a file adds itself when its open succeeds and
 * removes itself when it closes; at teardown the context takes the files still in
 * it, one at a time, and closes them. Nodes are embedded in their owners (no
 * allocation); all functions are thread-safe. Internal.
 */
#ifndef XIO_TRACKED_INT_H
#define XIO_TRACKED_INT_H

#include <pthread.h>

typedef struct xio__tracked_node {
  struct xio__tracked_node *next;
} xio__tracked_node;

typedef struct xio__tracked {
  pthread_mutex_t mu;
  xio__tracked_node *head;
} xio__tracked;

/** Makes `t` empty. */
void xio__tracked_init(xio__tracked *t);

/** Releases `t`'s lock; `t` must be empty. */
void xio__tracked_destroy(xio__tracked *t);

/** Adds `n`, which must not be in a set. */
void xio__tracked_add(xio__tracked *t, xio__tracked_node *n);

/** Removes `n` when it is in `t` (a node already taken is left alone). */
void xio__tracked_remove(xio__tracked *t, xio__tracked_node *n);

/** Calls `fn(node, ud)` for each node of `t` with the set locked: `fn` must not add to
 *  or remove from `t`. */
void xio__tracked_each(xio__tracked *t, void (*fn)(xio__tracked_node *n, void *ud), void *ud);

/** Removes and returns a node of `t`, or NULL when it is empty. */
xio__tracked_node *xio__tracked_take(xio__tracked *t);

#endif
