/*
 * leaseclock.c - a lease clock for tests that they move ahead (see leaseclock.h).
 */
#define _DEFAULT_SOURCE
#include "leaseclock.h"

#include <stdatomic.h>
#include <sys/mman.h>

#include "test.h"

struct leaseclock {
  _Atomic int64_t offset_us;
};

leaseclock *leaseclock_new(void) {
  void *m =
      mmap(NULL, sizeof(leaseclock), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT(m != MAP_FAILED);
  leaseclock *c = m;
  atomic_store(&c->offset_us, 0);
  return c;
}

void leaseclock_free(leaseclock *c) {
  if (c) munmap(c, sizeof *c);
}

void leaseclock_advance(leaseclock *c, int64_t us) { atomic_fetch_add(&c->offset_us, us); }

static int64_t now_us(void *ud) {
  leaseclock *c = ud;
  return xio_auth_monotonic_us() + atomic_load(&c->offset_us);
}

xio_lease_clock leaseclock_lease(leaseclock *c) {
  xio_lease_clock lc = {now_us, c};
  return lc;
}
