/*
 * config.c - the plugin's parameters: url= (the target, or url=@FILE: the target on
 * FILE's first line, as the xio command's @FILE, so that a SAS stays out of the
 * command line), size= (create with this size), resize=1 (change an existing
 * target's size to size=) and takeover=1 (break another client's lease).
 * Credentials and tracing come from the environment, read by the xio context
 * (AZURE_STORAGE_CONNECTION_STRING, XIO_CREDENTIALS, Entra ID, XIO_TRACE), as for
 * the xio command.
 */
#define _POSIX_C_SOURCE    200809L
#define NBDKIT_API_VERSION 2
#include <errno.h>
#include <nbdkit-plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbd_int.h"
#include "samples_common.h"

#define URL_MAX 8192 /* longest URL read from a file, as the xio command's @FILE */

xnbd_config xnbd_cfg;

/* A 0/1 parameter into `out`. 0, or -1 after nbdkit_error. */
static int parse_flag(const char *key, const char *value, int *out) {
  int b = nbdkit_parse_bool(value);
  if (b == -1) {
    nbdkit_error("xio: %s=%s: not a boolean (use 1 or 0)", key, value);
    return -1;
  }
  *out = b;
  return 0;
}

/* size= into the configuration: a size xio reads ("4G"), a whole number of 512-byte
 * pages, at most a page blob's limit. 0, or -1 after nbdkit_error. */
static int parse_size(const char *value) {
  uint64_t size = 0;
  xio_error err;
  memset(&err, 0, sizeof err);
  if (xio_size_parse(value, &size, &err) != XIO_OK) {
    nbdkit_error("xio: size=%s: %s", value, err.message);
    return -1;
  }
  if (size == 0 || size % XIO_PAGE_SIZE != 0 || size > XIO_FILE_MAX_SIZE) {
    nbdkit_error("xio: size=%s: must be a positive multiple of 512 bytes of at most 8T", value);
    return -1;
  }
  xnbd_cfg.size = size;
  xnbd_cfg.has_size = 1;
  return 0;
}

/* url=@FILE: the URL on the first line of FILE into the configuration, never quoted
 * in a message (it may hold a SAS). 0, or -1 after nbdkit_error. */
static int read_url_file(const char *path) {
  if (!path[0] || strcmp(path, "-") == 0) {
    nbdkit_error("xio: url=@%s: name the file that holds the URL (url=@FILE; a descriptor "
                 "as url=@/dev/fd/N); write a local path that starts with '@' as ./@name",
                 path);
    return -1;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    nbdkit_error("xio: url=@%s: cannot open %s: %s", path, path, strerror(errno));
    return -1;
  }
  char *line = xio_malloc(URL_MAX + 2);
  if (!line) {
    fclose(f);
    nbdkit_error("xio: out of memory");
    return -1;
  }
  int errnum;
  const char *wrong = samples_read_first_line(f, 0, line, URL_MAX + 2, &errnum);
  fclose(f);
  if (wrong) {
    nbdkit_error("xio: url=@%s: %s %s%s%s", path, path, wrong, errnum ? ": " : "",
                 errnum ? strerror(errnum) : "");
  } else {
    xnbd_cfg.url = xio_strdup(line);
    if (!xnbd_cfg.url) nbdkit_error("xio: out of memory");
  }
  xio_auth_secret_free(line, URL_MAX + 2);
  return xnbd_cfg.url ? 0 : -1;
}

/* url=: the target, given or read from a file; a SAS in a given one is overwritten
 * in nbdkit's command line once copied. 0, or -1 after nbdkit_error. */
static int parse_url(const char *value) {
  if (xnbd_cfg.url) {
    nbdkit_error("xio: url= given twice");
    return -1;
  }
  if (value[0] == '@') {
    if (read_url_file(value + 1) != 0) return -1;
  } else {
    xnbd_cfg.url = xio_strdup(value);
    if (!xnbd_cfg.url) {
      nbdkit_error("xio: out of memory");
      return -1;
    }
    xnbd_scrub_arg(value);
  }
  if (xio_target_classify(xnbd_cfg.url) == XIO_TARGET_UNSUPPORTED) {
    nbdkit_error("xio: url=%s: not a page-blob URL (http, https) or local path",
                 value[0] == '@' ? value : "");
    return -1;
  }
  return 0;
}

int xnbd_config_key(const char *key, const char *value) {
  if (strcmp(key, "url") == 0) return parse_url(value);
  if (strcmp(key, "size") == 0) return parse_size(value);
  if (strcmp(key, "resize") == 0) return parse_flag(key, value, &xnbd_cfg.resize);
  if (strcmp(key, "takeover") == 0) return parse_flag(key, value, &xnbd_cfg.takeover);
  nbdkit_error("xio: unknown parameter '%s' (url=, size=, resize=, takeover=)", key);
  return -1;
}

int xnbd_config_complete(void) {
  if (!xnbd_cfg.url) {
    nbdkit_error("xio: url= is required (a page-blob URL or a local path)");
    return -1;
  }
  if (xnbd_cfg.resize && !xnbd_cfg.has_size) {
    nbdkit_error("xio: resize=1 needs size=");
    return -1;
  }
  return 0;
}

void xnbd_config_free(void) {
  if (xnbd_cfg.url) xio_auth_secret_free(xnbd_cfg.url, strlen(xnbd_cfg.url));
  memset(&xnbd_cfg, 0, sizeof xnbd_cfg);
}
