/*
 * main.c - a consumer of the installed xio package: creates a context, writes and
 * reads a local file through the file API, and prints what it read.
 */
#include <stdio.h>
#include <string.h>

#include <xio/xio.h>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  if (xio_ctx_new(&o, &ctx, &e) != XIO_OK) return 1;
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.kind = XIO_KIND_LOG;
  oo.size = 4096;
  xio_file *f = NULL;
  char buf[16] = {0};
  size_t got = 0;
  int ok = xio_file_open(ctx, argv[1], &oo, &f, &e) == XIO_OK &&
           xio_file_write(f, 0, "hello, xio", 10, &e) == XIO_OK &&
           xio_file_read(f, 0, buf, 10, &got, &e) == XIO_OK && got == 10;
  xio_file_close(f, NULL);
  xio_ctx_free(ctx);
  if (!ok) {
    char line[1024];
    fprintf(stderr, "%s\n", xio_error_format(&e, line, sizeof line));
    return 1;
  }
  printf("%s\n", buf);
  return 0;
}
