/*
 * replay.c - a main for the fuzz targets without libFuzzer: feeds every file of the
 * corpus directories (or files) named on the command line to LLVMFuzzerTestOneInput,
 * so the committed corpora replay as ordinary tests under gcc and the sanitizers.
 * Exits 0 when every input ran, 1 when a path cannot be read or holds no input (a
 * replay that tests nothing must not pass). A broken property aborts.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads the whole file `path`; 0 on success. */
static int read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *b = realloc(buf, cap *= 2);
      if (!b) free(buf);
      buf = b;
    }
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) {
    free(buf);
    return -1;
  }
  *data = buf;
  *size = n;
  return 0;
}

/* Runs one input file; 0 on success. */
static int run_file(const char *path) {
  uint8_t *data;
  size_t size;
  if (read_file(path, &data, &size) != 0) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return -1;
  }
  /* A copy of exactly `size` bytes, so ASan sees a read past the input's end. */
  uint8_t *exact = malloc(size ? size : 1);
  if (!exact) return free(data), -1;
  memcpy(exact, data, size);
  free(data);
  LLVMFuzzerTestOneInput(exact, size);
  free(exact);
  return 0;
}

/* Runs every regular file of directory `dir`, counting them into *count. */
static int run_dir(const char *dir, size_t *count) {
  DIR *d = opendir(dir);
  if (!d) return fprintf(stderr, "replay: cannot open %s\n", dir), -1;
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *path = malloc(n);
    if (!path) return closedir(d), -1;
    snprintf(path, n, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      rc = run_file(path);
      *count += rc == 0;
    }
    free(path);
  }
  closedir(d);
  return rc;
}

int main(int argc, char **argv) {
  size_t count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    int rc = stat(argv[i], &st) != 0 ? (fprintf(stderr, "replay: no %s\n", argv[i]), -1)
             : S_ISDIR(st.st_mode)   ? run_dir(argv[i], &count)
                                     : run_file(argv[i]);
    if (rc != 0) return 1;
    if (!S_ISDIR(st.st_mode)) count++;
  }
  if (count == 0) {
    fprintf(stderr, "replay: no input to run (usage: %s CORPUS_DIR|FILE...)\n", argv[0]);
    return 1;
  }
  printf("replay: %zu inputs ran\n", count);
  return 0;
}
