/*
 * nbd_int.h - what the files of the nbdkit plugin share (never installed).
 *
 * The plugin (samples/engines/nbdkit) serves one xio target, a page blob or a local file,
 * as an NBD export. It is built on xio's public headers alone (and samples/common):
 * config.c reads the key=value parameters, cmdline.c takes a SAS off nbdkit's
 * command line, export.c opens the target with its lease and closes it, zeroscan.c
 * decides how a write full of zeros is sent, writes.c sends writes, zeroing and
 * flushes, extents.c answers block-status from the allocated ranges, and plugin.c
 * ties them to nbdkit's callbacks.
 */
#ifndef XIO_NBD_INT_H
#define XIO_NBD_INT_H

#include <stddef.h>
#include <stdint.h>

#include <xio/xio.h>

/* ---------------------------------------------------------- config.c ---- */

/** The plugin's parameters, as nbdkit passed them. */
typedef struct xnbd_config {
  char *url;     /* url= (or read from url=@FILE): any xio target (xio_malloc'd, may
                    hold a SAS: wiped when freed), required */
  uint64_t size; /* size=: the size to create with (0: none given) */
  int resize;    /* resize=1: an existing target of another size is resized */
  int takeover;  /* takeover=1: break another holder's lease */
  int has_size;  /* size= was given */
} xnbd_config;

/** The one configuration of the loaded plugin. */
extern xnbd_config xnbd_cfg;

/** nbdkit's config callback: takes url= (url=@FILE: the URL on FILE's first line,
 *  read as the xio command reads @FILE), size=, resize=, takeover=. A SAS in a url=
 *  given inline is overwritten in nbdkit's command line once copied
 *  (xnbd_scrub_arg). Returns 0, or -1 after nbdkit_error naming the key and what
 *  is wrong with its value (never the URL read from a file). */
int xnbd_config_key(const char *key, const char *value);

/** nbdkit's config_complete callback: url= is required. 0, or -1 after
 *  nbdkit_error. */
int xnbd_config_complete(void);

/** Frees what the configuration owns (unload). */
void xnbd_config_free(void);

/* --------------------------------------------------------- cmdline.c ---- */

/** Overwrites with '*' the secrets (xio_auth_scrub) of a parameter `value` that
 *  nbdkit handed over as a pointer into its own argv, once the plugin copied it, so
 *  that ps and /proc/PID/cmdline no longer show them. Does nothing for a value
 *  outside the process's argument area, or when /proc/self/stat cannot tell it. */
void xnbd_scrub_arg(const char *value);

/** The help text of the parameters, for nbdkit's --help. */
#define XNBD_CONFIG_HELP                                                                           \
  "url=URL        (required) the page blob (URL, SAS URL, snapshot URL) or local file\n"           \
  "url=@FILE      the same, read from FILE's first line (keeps a SAS out of ps)\n"                 \
  "size=SIZE      create the target with this size when it does not exist\n"                       \
  "resize=1       an existing target of another size than size= is resized to it\n"                \
  "takeover=1     break another client's lease on the target and serve it\n"                       \
  "Credentials: AZURE_STORAGE_CONNECTION_STRING, a SAS in the URL, XIO_CREDENTIALS or\n"           \
  "Entra ID, as the xio command. XIO_TRACE=FILE writes one JSON line per request."

/* ---------------------------------------------------------- export.c ---- */

/** The served target: one context and one open file for the whole process, shared by
 *  every connection (see plugin.c on multi-conn). */
typedef struct xnbd_export {
  xio_ctx *ctx;
  xio_file *file;
  int readonly; /* a snapshot: no writes */
  uint64_t size;
} xnbd_export;

/** The export of the running plugin (valid between after_fork and cleanup). */
extern xnbd_export xnbd_ex;

/** Makes the context and opens the configured target into xnbd_ex: creates it
 *  when missing and size= was given, holds its lease (takeover=1 breaks another's),
 *  checks or changes its size. 0, or -1 after nbdkit_error saying why (a lease held
 *  by another names the lease and takeover=1). */
int xnbd_export_open(void);

/** Before nbdkit forks or listens (get_ready): opens the target as
 *  xnbd_export_open does, with a context of its own, and closes it again
 *  (releasing the lease), so that what makes the open fail (a leased blob, a missing
 *  one, a refused credential) ends nbdkit before it serves or runs --run's command.
 *  What the open does stays done (a blob created for size=, resized for resize=1,
 *  another's lease broken for takeover=1). 0, or -1 after nbdkit_error. */
int xnbd_export_check(void);

/** Closes the file (waiting for its requests, releasing its lease) and frees the
 *  context. Safe to call twice and when nothing is open. */
void xnbd_export_close(void);

/** Reports a failed xio call through nbdkit_error ("xio: OP at OFFSET+LEN: CODE:
 *  message", never a secret: xio's messages and targets are log-safe), sets
 *  nbdkit's errno for the client (EIO; ENOMEM, EROFS where they apply) and
 *  returns -1. */
int xnbd_fail(const char *op, uint64_t offset, uint64_t len, const xio_error *err);

/* -------------------------------------------------------- zeroscan.c ---- */

/** The unit a write is scanned in for zeros: 4 KiB, the block size file systems
 *  and engines write (the last unit of a write may be shorter). */
#define XNBD_ZERO_UNIT 4096u
/** Zeros inside a write are cleared instead of shipped only in runs of at least
 *  this size; shorter runs ride along with the data around them. */
#define XNBD_ZERO_RUN_MIN (64u * 1024u)
/** What one extra request must save in shipped zeros to be worth it. */
#define XNBD_REQUEST_WORTH (256u * 1024u)
/** The largest request xio sends (Put Page's limit), to count requests. */
#define XNBD_MAX_REQUEST (4u * 1024u * 1024u)

/** One piece of a write as it will be sent: `len` bytes at `off` in the buffer,
 *  shipped as data or cleared (Put Page clear). */
typedef struct xnbd_piece {
  size_t off, len;
  int clear;
} xnbd_piece;

/** How a write goes out: `n` pieces in buffer order, covering it exactly. */
typedef struct xnbd_plan {
  xnbd_piece *v; /* malloc'd */
  size_t n;
  uint64_t shipped; /* data bytes sent */
  uint64_t cleared; /* bytes cleared */
} xnbd_plan;

/**
 * Plans the write of the `len` bytes at `buf` (see zeroscan.c for the rule): all
 * zero is one clear; a write with long runs of zeros ships its data and clears the
 * runs when that saves enough shipped zeros per extra request; anything else is
 * one plain write (a single piece). `out` is overwritten; free it with
 * xnbd_plan_free. Returns 0, or -1 when out of memory.
 */
int xnbd_plan_write(const void *buf, size_t len, xnbd_plan *out);

/** Frees what `p` owns and zeroes it. */
void xnbd_plan_free(xnbd_plan *p);

/* ---------------------------------------------------------- writes.c ---- */

/** pwrite: the planned pieces, sent concurrently, all acknowledged before it
 *  returns. 0 or -1 (nbdkit_error and errno set). */
int xnbd_write(const void *buf, uint32_t count, uint64_t offset);

/** trim and zero: [offset, offset+count) reads as zeros afterwards, by one Put Page
 *  clear whatever its size (unaligned edges are written as zeros). 0 or -1. */
int xnbd_zero(uint32_t count, uint64_t offset);

/** How recently the service must have confirmed the lease for a flush to answer
 *  without asking again (xio_file_lease_confirm), in milliseconds. */
#define XNBD_LEASE_CONFIRM_MS 1000

/** flush: returns once every write acknowledged so far is durable (a Put Page is
 *  durable once acknowledged) and the service confirmed the lease within the last
 *  XNBD_LEASE_CONFIRM_MS (asking it when the last confirmation is older). 0, or
 *  -1 (EIO) when the lease is lost or could not be confirmed. */
int xnbd_flush(void);

/* --------------------------------------------------------- extents.c ---- */

struct nbdkit_extents;

/** extents: the allocated ranges of the target over [offset, offset+count) as data,
 *  the rest as HOLE|ZERO. `req_one` stops after the first extent. 0 or -1. */
int xnbd_extents(uint32_t count, uint64_t offset, int req_one, struct nbdkit_extents *extents);

#endif /* XIO_NBD_INT_H */
