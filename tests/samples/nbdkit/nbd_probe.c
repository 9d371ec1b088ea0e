/*
 * nbd_probe.c - a small NBD client for the plugin's tests: connects to an NBD URI
 * with libnbd and runs the steps given on its command line, in order, each on the
 * one connection:
 *
 *   nbd_probe URI STEP...
 *     write OFF LEN BYTE   write LEN bytes of BYTE (0: all zeros) at OFF
 *     head OFF LEN BYTE    write LEN bytes at OFF: the first 4 KiB BYTE, the rest zeros
 *     zero OFF LEN         NBD_CMD_WRITE_ZEROES
 *     trim OFF LEN         NBD_CMD_TRIM
 *     flush                NBD_CMD_FLUSH
 *     expect OFF LEN BYTE  read LEN bytes at OFF; each must be BYTE
 *
 * Sizes take K, M, G suffixes. Exit 0 when every step worked; else 1 after a line
 * "nbd_probe: STEP failed: ERRNO-NAME: libnbd's message" (the errno the server sent,
 * by name, so a test can ask for EIO), or 2 for bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <libnbd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A size with an optional K/M/G suffix; exits 2 on a bad one. */
static uint64_t size_arg(const char *s) {
  char *end = NULL;
  uint64_t v = strtoull(s, &end, 10);
  if (end == s) goto bad;
  switch (*end) {
  case 'K': v <<= 10, end++; break;
  case 'M': v <<= 20, end++; break;
  case 'G': v <<= 30, end++; break;
  default: break;
  }
  if (*end == '\0') return v;
bad:
  fprintf(stderr, "nbd_probe: not a size: %s\n", s);
  exit(2);
}

static const char *errno_name(int e) {
  switch (e) {
  case EIO: return "EIO";
  case EROFS: return "EROFS";
  case EINVAL: return "EINVAL";
  case ENOSPC: return "ENOSPC";
  case ENOMEM: return "ENOMEM";
  case EPERM: return "EPERM";
  default: return "E?";
  }
}

static int failed(const char *step) {
  printf("nbd_probe: %s failed: %s: %s\n", step, errno_name(nbd_get_errno()), nbd_get_error());
  return 1;
}

/* Runs one step at argv[0]; returns how many arguments it took, or -1 on failure. */
static int step(struct nbd_handle *h, int argc, char **argv) {
  const char *s = argv[0];
  int args = strcmp(s, "flush") == 0                              ? 0
             : (strcmp(s, "zero") == 0 || strcmp(s, "trim") == 0) ? 2
                                                                  : 3;
  if (argc < args + 1) {
    fprintf(stderr, "nbd_probe: %s needs %d arguments\n", s, args);
    exit(2);
  }
  if (strcmp(s, "flush") == 0) return nbd_flush(h, 0) == 0 ? 0 : (failed(s), -1);
  uint64_t off = size_arg(argv[1]), len = size_arg(argv[2]);
  if (strcmp(s, "zero") == 0) return nbd_zero(h, len, off, 0) == 0 ? 2 : (failed(s), -1);
  if (strcmp(s, "trim") == 0) return nbd_trim(h, len, off, 0) == 0 ? 2 : (failed(s), -1);
  int byte = (int)size_arg(argv[3]);
  unsigned char *buf = calloc(1, len ? len : 1);
  if (!buf) return -1;
  int rc = 3;
  if (strcmp(s, "write") == 0 || strcmp(s, "head") == 0) {
    memset(buf, byte, strcmp(s, "head") == 0 && len > 4096 ? 4096 : len);
    if (nbd_pwrite(h, buf, len, off, 0) != 0) rc = (failed(s), -1);
  } else if (strcmp(s, "expect") == 0) {
    if (nbd_pread(h, buf, len, off, 0) != 0) {
      rc = (failed(s), -1);
    } else {
      for (uint64_t i = 0; i < len && rc > 0; i++)
        if (buf[i] != byte) {
          printf("nbd_probe: expect: byte %" PRIu64 " is %d, not %d\n", off + i, buf[i], byte);
          rc = -1;
        }
    }
  } else {
    fprintf(stderr, "nbd_probe: unknown step %s\n", s);
    exit(2);
  }
  free(buf);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: nbd_probe URI STEP...\n");
    return 2;
  }
  struct nbd_handle *h = nbd_create();
  if (!h || nbd_connect_uri(h, argv[1]) != 0) {
    printf("nbd_probe: connect failed: %s\n", nbd_get_error());
    return 1;
  }
  int rc = 0;
  for (int i = 2; i < argc && rc == 0; i++) {
    int took = step(h, argc - i, argv + i);
    if (took < 0)
      rc = 1;
    else
      i += took;
  }
  nbd_shutdown(h, 0);
  nbd_close(h);
  return rc;
}
