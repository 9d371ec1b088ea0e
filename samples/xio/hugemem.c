/*
 * hugemem.c - the transfer buffers' memory: one private anonymous mapping, its
 * start aligned to 2 MiB and advised for transparent huge pages (MADV_HUGEPAGE).
 *
 * put's ring (source.c) and get's read buffers (window.c) are written once per
 * byte moved, by the disk or by the network. In 4 KiB pages their first pass costs
 * a fault per page, 2,048 per 8 MiB buffer, and a fault is dear in a virtual
 * machine (a noticeable share of a get's CPU: docs/benchmarks/design.md#put-ring-huge-pages);
 * in 2 MiB pages, wherever the kernel grants them on madvise, it costs 4. An O_DIRECT write or read
 * of 4 MiB also pins 2 pages instead of 1,024. A kernel that refuses the advice gives small pages:
 * the memory works the same. Pages are only backed once touched, so a mapping larger than what a
 * transfer uses costs address space, not memory.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "cli.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t round_up(size_t n) { return (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE; }

void *cli_huge_map(size_t size) {
  size = round_up(size);
  char *raw =
      mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  size_t head = (HUGE_PAGE - (uintptr_t)raw % HUGE_PAGE) % HUGE_PAGE;
  if (head) munmap(raw, head);
  munmap(raw + head + size, HUGE_PAGE - head);    /* head < HUGE_PAGE: never empty */
  (void)madvise(raw + head, size, MADV_HUGEPAGE); /* refused: small pages */
  return raw + head;
}

void cli_huge_unmap(void *p, size_t size) {
  if (p) munmap(p, round_up(size));
}
