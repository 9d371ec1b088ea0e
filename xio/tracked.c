/*
 * tracked.c - the tracked set (see tracked_int.h): a locked singly linked list of
 * nodes embedded in their owners. Adding and taking are O(1); removing walks the
 * list, which holds the files open in one context.
 */
#include <stddef.h>

#include "tracked_int.h"

void xio__tracked_init(xio__tracked *t) {
  pthread_mutex_init(&t->mu, NULL);
  t->head = NULL;
}

void xio__tracked_destroy(xio__tracked *t) { pthread_mutex_destroy(&t->mu); }

void xio__tracked_add(xio__tracked *t, xio__tracked_node *n) {
  pthread_mutex_lock(&t->mu);
  n->next = t->head;
  t->head = n;
  pthread_mutex_unlock(&t->mu);
}

void xio__tracked_remove(xio__tracked *t, xio__tracked_node *n) {
  pthread_mutex_lock(&t->mu);
  for (xio__tracked_node **p = &t->head; *p; p = &(*p)->next)
    if (*p == n) {
      *p = n->next;
      break;
    }
  pthread_mutex_unlock(&t->mu);
}

xio__tracked_node *xio__tracked_take(xio__tracked *t) {
  pthread_mutex_lock(&t->mu);
  xio__tracked_node *n = t->head;
  if (n) t->head = n->next;
  pthread_mutex_unlock(&t->mu);
  return n;
}

void xio__tracked_each(xio__tracked *t, void (*fn)(xio__tracked_node *n, void *ud), void *ud) {
  pthread_mutex_lock(&t->mu);
  for (xio__tracked_node *n = t->head; n; n = n->next)
    fn(n, ud);
  pthread_mutex_unlock(&t->mu);
}
