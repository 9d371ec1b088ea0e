/*
 * cli_test.c - allocation failure in the xio command line's put and get of a small
 * sparse file (64 KiB, two data extents) to and from a page blob on Azurite. The
 * command line's own sources are built into this test with their main() renamed, so
 * each run is `xio put --force LOCAL URL` then `xio get --force URL LOCAL2` in this
 * process, its output captured in a file. Every k-th allocation point (see
 * failalloc.h) is failed in turn.
 *
 * A run that fails must exit with status 1 and say "out of memory"; one that
 * succeeds must have brought back the same bytes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/xio.h>
#include <xio/error_int.h>

#include "failalloc.h"
#include "scratch.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define FILE_SIZE (64 << 10)

int allocfail_cli_main(int argc, char **argv);

typedef struct cl {
  char dir[512];
  char local[600], back[600], out[600];
  char url[512];
  unsigned char data[FILE_SIZE];
  unsigned char got[FILE_SIZE + 1];
  int status;
  char output[4096];
} cl;

/* Runs the command line with `argv` (NULL-terminated), its stdout and stderr going
 * to the capture file. Returns its exit status. */
static int run_cli(cl *c, char **argv) {
  int argc = 0;
  while (argv[argc])
    argc++;
  fflush(stdout);
  fflush(stderr);
  int save1 = dup(1), save2 = dup(2);
  int fd = open(c->out, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (save1 < 0 || save2 < 0 || fd < 0) return -1;
  dup2(fd, 1);
  dup2(fd, 2);
  close(fd);
  int status = allocfail_cli_main(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(save1, 1);
  dup2(save2, 2);
  close(save1);
  close(save2);
  return status;
}

static void read_file(const char *path, char *buf, size_t size, size_t *n) {
  *n = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) return;
  *n = fread(buf, 1, size, fp);
  fclose(fp);
}

static void cl_reset(void *ud) {
  cl *c = ud;
  unlink(c->back);
  unlink(c->out);
}

static xio_err cl_op(void *ud, xio_error *err) {
  cl *c = ud;
  char *put[] = {"xio", "--quiet", "put", "--force", c->local, c->url, NULL};
  char *get[] = {"xio", "--quiet", "get", "--force", c->url, c->back, NULL};
  c->status = run_cli(c, put);
  if (c->status == 0) c->status = run_cli(c, get);
  if (c->status == 0) return XIO_OK;
  size_t n;
  read_file(c->out, c->output, sizeof c->output - 1, &n);
  c->output[n] = '\0';
  if (c->status == 1 && strstr(c->output, "out of memory"))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return xio_error_set(err, XIO_EIO, "exit status %d: %.900s", c->status, c->output);
}

static void cl_check(void *ud, xio_err rc, int injected) {
  cl *c = ud;
  (void)injected;
  if (rc != XIO_OK) return;
  size_t n;
  read_file(c->back, (char *)c->got, sizeof c->got, &n);
  ASSERT_EQ(n, FILE_SIZE);
  ASSERT_MEM_EQ(c->got, c->data, FILE_SIZE);
}

TEST(cli_put_get) {
  af_install();
  static cl c;
  test_scratch_dir(c.dir, sizeof c.dir, "xio-allocfail");
  snprintf(c.local, sizeof c.local, "%s/small.mdf", c.dir);
  snprintf(c.back, sizeof c.back, "%s/back.mdf", c.dir);
  snprintf(c.out, sizeof c.out, "%s/output.txt", c.dir);
  char cont[64];
  test_unique_name(cont, sizeof cont, "allocfail");
  snprintf(c.url, sizeof c.url, "%s/%s/small.mdf", test_account_url(), cont);
  memset(c.data, 0, sizeof c.data);
  test_fill_random(c.data, 4096, 1);         /* a data extent at 0 */
  test_fill_random(c.data + 32768, 8192, 2); /* and one in the middle */
  FILE *fp = fopen(c.local, "wb");
  ASSERT(fp && fwrite(c.data, 1, sizeof c.data, fp) == sizeof c.data && fclose(fp) == 0);
  setenv("AZURE_STORAGE_CONNECTION_STRING", test_dev_connection_string(), 1);
  af_scenario s = {.name = "cli_put_get",
                   .op = cl_op,
                   .reset = cl_reset,
                   .check = cl_check,
                   .ud = &c,
                   .budget = 400,
                   .min_points = 300};
  af_run(&s);
  cl_reset(&c);
  test_remove_tree(c.dir);
}
