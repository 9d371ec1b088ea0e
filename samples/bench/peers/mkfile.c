/*
 * mkfile.c - `xio-peers mkfile`: the benchmark's input files, made the same way on
 * every run from a seed:
 *   random PATH SIZE   SIZE bytes of pseudo-random data (no zero page in practice)
 *   frag PATH PAGES    a sparse file holding PAGES isolated 512-byte pages of
 *                      random data, one at the start of every KiB (every other
 *                      512-byte page), sized up to a whole MiB: 20000 pages make
 *                      the 20 MiB fragmented database file
 * Each file is synced to the disk before the command ends.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peers.h"

#define CHUNK (4u << 20)
#define MiB   (1ull << 20)

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void fill(unsigned char *buf, size_t n, uint64_t *s) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = splitmix(s);
    memcpy(buf + i, &v, n - i < 8 ? n - i : 8);
  }
}

static int put_all(int fd, const unsigned char *buf, size_t n, uint64_t off) {
  while (n > 0) {
    ssize_t w = pwrite(fd, buf, n, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    buf += w, n -= (size_t)w, off += (uint64_t)w;
  }
  return 0;
}

static int make_random(int fd, uint64_t size, uint64_t seed, unsigned char *buf) {
  for (uint64_t off = 0; off < size; off += CHUNK) {
    size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
    fill(buf, n, &seed);
    if (put_all(fd, buf, n, off) != 0) return -1;
  }
  return 0;
}

static int make_frag(int fd, uint64_t pages, uint64_t seed, unsigned char *buf) {
  uint64_t size = (pages * 1024 + MiB - 1) / MiB * MiB;
  if (ftruncate(fd, (off_t)size) != 0) return -1;
  for (uint64_t i = 0; i < pages; i++) {
    fill(buf, 512, &seed);
    if (put_all(fd, buf, 512, i * 1024) != 0) return -1;
  }
  return 0;
}

int peers_mkfile(int argc, char **argv) {
  uint64_t n = 0, seed = 1;
  if (argc < 3 || (strcmp(argv[0], "random") != 0 && strcmp(argv[0], "frag") != 0)) {
    fprintf(stderr, "usage: xio-peers mkfile random PATH SIZE | frag PATH PAGES [--seed N]\n");
    return 2;
  }
  int frag = !strcmp(argv[0], "frag");
  if (peers_size_arg(frag ? "PAGES" : "SIZE", argv[2], &n) != 0) return 2;
  if (argc == 5 && !strcmp(argv[3], "--seed")) {
    if (peers_size_arg("--seed", argv[4], &seed) != 0) return 2;
  } else if (argc != 3) {
    fprintf(stderr, "xio-peers mkfile: unexpected argument '%s'\n", argv[3]);
    return 2;
  }
  if (frag && (n == 0 || n > (1u << 24))) {
    fprintf(stderr, "xio-peers mkfile: PAGES must be 1..16777216\n");
    return 2;
  }
  unsigned char *buf = malloc(CHUNK);
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = !buf || fd < 0 ? -1 : frag ? make_frag(fd, n, seed, buf) : make_random(fd, n, seed, buf);
  /* on the disk before any client reads it, as a database file to upload would be:
   * no client then pays for writing back what this wrote */
  if (rc == 0 && fsync(fd) != 0) rc = -1;
  if (fd >= 0 && close(fd) != 0) rc = -1;
  free(buf);
  if (rc != 0) {
    fprintf(stderr, "xio-peers mkfile: cannot write %s: %s\n", argv[1],
            buf ? strerror(errno) : "out of memory");
    return 1;
  }
  return 0;
}
