/*
 * checksums.c - the fidelity front's transactional checksums on reads. Azure
 * answers a Get Blob that carries x-ms-range-get-content-crc64: true (with a range
 * of at most 4 MiB) with x-ms-content-crc64, the CRC-64/NVME of the body it sends;
 * Azurite does not compute it (in its strict mode it even refuses the header, so
 * the emulator runs it in its loose mode, where the header is ignored, and the front
 * adds the answer). The CRC is computed here over the body as Azurite sent it, before
 * any fault the proxy injects on top, so a body corrupted afterwards no longer
 * matches, as one corrupted between Azure and its client would not.
 *
 * The CRC is this file's own (tables sliced by eight bytes, reflected polynomial
 * 0x9A6C9329AC4BC9B5, initial value and final xor all ones), not the client's, so
 * the client's implementations are checked against an independent one. Its CPU is
 * the emulator's, not the client's.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "faultproxy_int.h"

#define CRC64_NVME_POLY 0x9A6C9329AC4BC9B5ull

static uint64_t crc_table[8][256]; /* [k][b]: byte b followed by k zero bytes */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_make(void) {
  for (unsigned i = 0; i < 256; i++) {
    uint64_t c = i;
    for (int k = 0; k < 8; k++)
      c = c & 1 ? (c >> 1) ^ CRC64_NVME_POLY : c >> 1;
    crc_table[0][i] = c;
  }
  for (unsigned i = 0; i < 256; i++)
    for (int k = 1; k < 8; k++)
      crc_table[k][i] = crc_table[0][crc_table[k - 1][i] & 0xFF] ^ (crc_table[k - 1][i] >> 8);
}

uint64_t faultproxy__crc64(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t c = ~0ull;
  pthread_once(&crc_once, crc_table_make);
  for (; n >= 8; n -= 8, p += 8) { /* slicing by 8: eight bytes per step */
    uint64_t w = c;
    for (int k = 0; k < 8; k++)
      w ^= (uint64_t)p[k] << (8 * k);
    c = crc_table[7][w & 0xFF] ^ crc_table[6][(w >> 8) & 0xFF] ^ crc_table[5][(w >> 16) & 0xFF] ^
        crc_table[4][(w >> 24) & 0xFF] ^ crc_table[3][(w >> 32) & 0xFF] ^
        crc_table[2][(w >> 40) & 0xFF] ^ crc_table[1][(w >> 48) & 0xFF] ^ crc_table[0][w >> 56];
  }
  for (; n; n--, p++)
    c = crc_table[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return ~c;
}

/* base64 of the CRC's 8 little-endian bytes: 12 characters and a NUL. */
static void crc_base64(uint64_t crc, char out[13]) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned char b[9] = {0};
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(crc >> (8 * i));
  for (int g = 0; g < 3; g++) {
    uint32_t v = (uint32_t)b[3 * g] << 16 | (uint32_t)b[3 * g + 1] << 8 | b[3 * g + 2];
    out[4 * g] = abc[v >> 18 & 63];
    out[4 * g + 1] = abc[v >> 12 & 63];
    out[4 * g + 2] = abc[v >> 6 & 63];
    out[4 * g + 3] = abc[v & 63];
  }
  out[11] = '='; /* 8 bytes: the last group holds two */
  out[12] = '\0';
}

/* Puts the line "name: value" at the end of the head of the response in `up`.
 * 0, or -1 out of memory (the response unchanged). */
static int add_header(buf *up, msg *m, const char *name, const char *value) {
  char line[256];
  int n = snprintf(line, sizeof line, "%s: %s\r\n", name, value);
  size_t cap = m->total + (size_t)n;
  char *d = malloc(cap);
  if (!d) return -1;
  size_t before = m->head_len - 2; /* up to the blank line */
  memcpy(d, up->d, before);
  memcpy(d + before, line, (size_t)n);
  memcpy(d + before + (size_t)n, up->d + before, m->total - before);
  free(up->d);
  up->d = d;
  up->n = up->cap = cap;
  m->head_len += (size_t)n;
  m->total += (size_t)n;
  return 0;
}

void faultproxy__front_read_checksum(const buf *in, const request *r, buf *up, msg *m) {
  char ask[16], te[32], target[2048];
  size_t hl = r->m.head_len;
  if (strcmp(r->method, "GET") != 0 || m->status < 200 || m->status > 299) return;
  if (!faultproxy__header(in->d, hl, "x-ms-range-get-content-crc64", ask, sizeof ask) ||
      strcasecmp(ask, "true") != 0)
    return;
  faultproxy__request_target(in, hl, target, sizeof target);
  if (strchr(target, '?') && strstr(target, "comp=")) return; /* not a Get Blob */
  if (faultproxy__header(up->d, m->head_len, "Transfer-Encoding", te, sizeof te) ||
      m->until_close || m->body_len > 4u * 1024 * 1024)
    return; /* not a body the front can read whole: passed as it came */
  char v[13];
  crc_base64(faultproxy__crc64(up->d + m->head_len, m->body_len), v);
  add_header(up, m, "x-ms-content-crc64", v);
}
