/*
 * cli.h - what the files of the xio command line share.
 *
 * The program is a table of commands (main.c). Each command group lives in its own
 * file and exports one cli_command per command; a command gets the arguments after
 * its name and returns the exit status: 0 done, 1 the operation failed (the error
 * and a hint are printed), 2 bad usage. Around the commands sit small helpers, one
 * concept per file: argument parsing (args.c), option values such as sizes and
 * durations (values.c), output for people and for --json (output.c; sizes, times
 * and the clock come from samples/common), errors with hints (errors.c), the xio
 * context built from the global options (context.c), a window of requests in
 * flight (window.c), the merging of a transfer's spans into requests (merge.c),
 * put's read-ahead of the local file (source.c), where a transfer writes its local
 * file (localdest.c), the partial file one run owns until it is renamed into place
 * (localfile.c), a target read from a file (atfile.c) and when the progress bar
 * shows (progress.c; samples/common draws it). Backups and restores are a library of their own
 * (samples/backup, xio_backup.h), which backup.c and restore.c call; so is the emulator
 * (samples/testers/emulator, xio_emulator.h), which emulator.c calls.
 *
 * Secrets: nothing printed by these files carries a SAS signature, an account key
 * or an Authorization value. Targets are printed in their log-safe form
 * (xio_target_safe, xio_file_path); only the sas command prints a token, on stdout,
 * because that is what it is for.
 */
#ifndef XIO_CLI_H
#define XIO_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <xio/xio.h>

#include "samples_common.h"
#include "samples_progress.h"
#include "samples_target.h"

/* Exit statuses. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* Returned by parsing helpers when the command should go on. */
#define CLI_CONTINUE (-1)

struct cli_command;

/* Most targets one command reads from files (@FILE, @-): cp's SRC and DST. */
#define CLI_MAX_READ_TARGETS 4

/** The global options and the state of one run. */
typedef struct cli {
  const char *trace;                        /* --trace FILE|- */
  const char *cacert;                       /* --cacert FILE */
  const char *pacing;                       /* --pacing auto|on|off, or NULL */
  const char *max_rate;                     /* --max-rate SIZE (per second), or NULL */
  const char *credentials;                  /* --credentials FILE */
  int json;                                 /* --json */
  int quiet;                                /* --quiet */
  int progress;                             /* --progress */
  int allow_insecure;                       /* --allow-insecure-http */
  int allow_exposed;                        /* --allow-exposed-credentials */
  const char *entra;                        /* --entra METHOD */
  int in_flight;                            /* put/get --in-flight N (0: the transfer's default) */
  xio_checksum checksum;                    /* put --checksum (default CRC64) */
  const struct cli_command *cmd;            /* the command running */
  xio_ctx *ctx;                             /* made by cli_context() on first use */
  char *read_targets[CLI_MAX_READ_TARGETS]; /* targets read from @FILE / @- (atfile.c) */
  int nread;
  int stdin_read; /* @- was taken: standard input is spent */
  int complete;   /* `xio __complete`: cli_parse lists the words that may come next */
} cli;

/** One command of the table. */
typedef struct cli_command {
  const char *name;
  const char *summary;  /* one line for `xio --help` */
  const char *synopsis; /* after "usage: xio "; lines separated by '\n' */
  const char *help;     /* what it does and its options, for `xio help NAME` */
  int (*run)(cli *c, int argc, char **argv);
} cli_command;

/* The commands (one file per group). */
extern const cli_command cli_cmd_create, cli_cmd_grow, cli_cmd_zero;
extern const cli_command cli_cmd_stat, cli_cmd_ranges;
extern const cli_command cli_cmd_put, cli_cmd_get;
extern const cli_command cli_cmd_rm;
extern const cli_command cli_cmd_sas;
extern const cli_command cli_cmd_lease;
extern const cli_command cli_cmd_snapshot;
extern const cli_command cli_cmd_ls, cli_cmd_cp;
extern const cli_command cli_cmd_backup, cli_cmd_restore;
extern const cli_command cli_cmd_emulator;

/** `snapshot diff` (snapdiff.c), run by the snapshot command: parses its own
 *  arguments and returns the exit status. */
int cli_snapshot_diff(cli *c, int argc, char **argv);

/* ------------------------------------------------------------ args.c ---- */

/** A command option: a flag (sets *flag to 1) or an option with a value. */
typedef struct cli_opt {
  const char *name;   /* "--size"; the table ends with a NULL name */
  const char **value; /* takes a value, stored here (borrowed from argv) */
  int *flag;          /* or: a flag */
} cli_opt;

/**
 * Parses a command's arguments: its options (`opts`, may be NULL), the global
 * options (accepted after the command too), --help, and the positional arguments
 * named in `names` ("LOCAL TARGET": at most that many) into `pos`, of which at least
 * `min_pos` are required. "--" ends the options. A TARGET, SRC, DST or
 * CONTAINER_URL written @FILE or @- is replaced by the target read from there
 * (cli_target_from_file). Returns CLI_CONTINUE, or the exit status to return at
 * once: 0 after printing the help for --help, 2 after printing a usage error (with
 * the closest option's name when one is close to an unknown option). With
 * c->complete, parses nothing: prints the options the command takes (its own, then
 * the global ones), one a line, unless the last argument is an option that awaits its
 * value (then nothing), and returns 0.
 */
int cli_parse(cli *c, int argc, char **argv, const cli_opt *opts, const char *names, int min_pos,
              const char **pos);

/**
 * Tries argv[*i] as a global option, taking its value from argv[*i + 1] or after
 * '='. Returns 1 when it was one (leaving *i on the last argument it used), 0 when
 * not, or 2 after printing a usage error (a missing value).
 */
int cli_global_option(cli *c, int argc, char **argv, int *i);

/** The usage error for the unknown option `arg`: names the closest of `opts` (may be
 *  NULL), the global options and --help when one is close. Returns CLI_USAGE. */
int cli_unknown_option(cli *c, const cli_opt *opts, const char *arg);

/** Prints "xio: CMD: MESSAGE", the command's usage and a pointer to its help on
 *  stderr; returns CLI_USAGE. */
int cli_usage_error(const cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Prints a command's full help (usage and options) on `out`. */
void cli_print_help(const cli_command *cmd, FILE *out);

/* -------------------------------------------------------- examples.c ---- */

/** The example command line of `command` ("put", after "xio "), or NULL. */
const char *cli_example(const char *command);

/* --------------------------------------------------------- suggest.c ---- */

/** "did you mean": the closest of the names offered to a mistyped `word`. */
typedef struct cli_guess {
  const char *word; /* borrowed */
  size_t len;       /* of the name compared: `word` up to any '=' */
  const char *best; /* the closest name so far (borrowed), or NULL */
  int dist;
} cli_guess;

/** Starts a guess for `word` (borrowed until the guess is done). Cannot fail. */
void cli_guess_init(cli_guess *g, const char *word);

/** Offers `name` (borrowed): kept when it is closer than any before and close enough
 *  to be what was meant (at most 2 edits, and at most one per 3 characters). */
void cli_guess_offer(cli_guess *g, const char *name);

/** The closest name offered, or NULL when none was close enough. */
const char *cli_guess_best(const cli_guess *g);

/* ---------------------------------------------------------- atfile.c ---- */

/**
 * The target that the argument `arg` named `what` ("TARGET") stands for: when it
 * is "@FILE", the first line of FILE; when "@-", the first line of standard input
 * (once per command); otherwise `arg` itself (and *out is not set). Keeps a URL
 * with a SAS off the command line, where every local user can read it. The line
 * loses its line end and surrounding blanks, and the lines after it must be blank.
 * *out is owned by `c` until cli_read_targets_free. Returns CLI_CONTINUE, or
 * CLI_USAGE after a message naming the argument and the file (never what it
 * holds): a FILE that cannot be opened or read, an empty first line, more than one
 * line, a line with control characters, too long (8 KiB) or starting with '@', a
 * second "@-", a bare "@".
 */
int cli_target_from_file(cli *c, const char *what, const char *arg, const char **out);

/** Wipes and frees the targets read from files; safe to repeat. */
void cli_read_targets_free(cli *c);

/* ------------------------------------------------------ schemeless.c ---- */

/**
 * When `arg`, a target that is a local path by its text, starts with what can only
 * be a host (127.0.0.1:10000/..., ACCOUNT.blob.core.windows.net/...) and nothing of
 * that first part exists here: writes the URL probably meant into `out` (http://
 * for loopback, else https://; a query left out, since it may hold a SAS, and
 * " (with its query)" said instead) and returns 1. Else 0: a local path. Never fails.
 */
int cli_schemeless_url(const char *arg, char *out, size_t size);

/* ----------------------------------------------------------- scrub.c ---- */

/** The private copies of the arguments that held a secret (cli_scrub_argv). */
typedef struct cli_scrubbed {
  char **copies; /* xio_calloc'd, `n` of them used */
  int n;
} cli_scrubbed;

/**
 * Takes the secrets off the command line: every argument after argv[0] that holds
 * one (xio_auth_scrub: a SAS sig, an AccountKey, user:password@) is copied into
 * `out`, argv[i] is pointed at the copy, and the original bytes, which ps and
 * /proc/PID/cmdline show, are overwritten with '*'. Call it first thing in main.
 * Returns 0, or -1 when out of memory (arguments scrubbed so far stay scrubbed and
 * copied; release `out` with cli_scrubbed_free either way).
 */
int cli_scrub_argv(int argc, char **argv, cli_scrubbed *out);

/** Wipes and frees the copies; safe to repeat. */
void cli_scrubbed_free(cli_scrubbed *s);

/* ---------------------------------------------------------- values.c ---- */

/** SIZE: plain bytes ("4096") or with a binary suffix K, M, G, T (also KiB, KB...,
 *  case-insensitive; "512B" too). Returns CLI_CONTINUE, or CLI_USAGE after a message
 *  naming `opt` and the bad value (garbage, negative, fraction, overflow). */
int cli_value_size(const cli *c, const char *opt, const char *text, uint64_t *out);

/** An integer in [min, max]. Returns as cli_value_size. */
int cli_value_int(const cli *c, const char *opt, const char *text, long min, long max, int *out);

/** A duration "90s", "30m", "1h", "7d" (or plain seconds) into seconds. */
int cli_value_duration(const cli *c, const char *opt, const char *text, int64_t *out);

/** A point in time: an ISO 8601 UTC time, or a duration from `now`. */
int cli_value_time(const cli *c, const char *opt, const char *text, time_t now, time_t *out);

/** "data" or "log" (NULL text: leaves *out). */
int cli_value_kind(const cli *c, const char *text, xio_kind *out);

/** "none", "zero" or "clear" (NULL text: leaves *out). */
int cli_value_init(const cli *c, const char *text, xio_init *out);

/** "crc64", "md5" or "none", the transactional checksum of writes (NULL text:
 *  leaves *out). */
int cli_value_checksum(const cli *c, const char *text, xio_checksum *out);

/* ---------------------------------------------------------- output.c ---- */

/** The snapshot `target` names by its snapshot= parameter (xio_target_parse), copied
 *  into `id` (`size` bytes); 1 when it names one that fits, 0 when it names none (a
 *  local path, a URL that does not parse, a blob merely called "a-snapshot=1"). */
int cli_target_snapshot(const char *target, char *id, size_t size);

/** 1 when `target` is a blob URL (http:// or https://, as xio_target_classify says),
 *  0 otherwise. */
static inline int cli_is_url(const char *target) {
  return xio_target_classify(target) == XIO_TARGET_BLOB;
}

/** Prints a line of human output on stdout, unless --quiet or --json. */
void cli_say(const cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Prints `o` as JSON on stdout and deletes it. */
void cli_json_print(cJSON *o);

/** Adds a number that fits a double exactly (sizes up to 8 TiB do). */
void cli_json_u64(cJSON *o, const char *name, uint64_t v);

/** "data" or "log". */
const char *cli_kind_name(xio_kind k);

/** "s" unless `n` is 1, for "%d range%s". */
const char *cli_plural(uint64_t n);

/* ---------------------------------------------------------- errors.c ---- */

/**
 * Reports a failed operation on stderr: "xio: CMD failed: OPERATION: MESSAGE (HTTP
 * STATUS CODE, request id ID)", the target, and a "hint:" line chosen by the error
 * code; with --json also an {"error": ...} object on stdout. Returns CLI_FAILED, or
 * CLI_USAGE when the target URL itself is malformed (operation ParseUrl).
 */
int cli_fail(const cli *c, xio_err rc, const xio_error *e);

/** The hint for an error, or NULL. */
const char *cli_hint(const xio_error *e);

/* --------------------------------------------------------- context.c ---- */

/** The run's context, made on first use from the global options (trace, CA,
 *  credential file and whether it may be exposed, insecure http, Entra ID method)
 *  and the environment. A SAS in use that expires soon gets a warning line on
 *  stderr. */
xio_err cli_context(cli *c, xio_ctx **out, xio_error *err);

/** Opens `target` in the run's context. */
xio_err cli_open(cli *c, const char *target, const xio_open_options *o, xio_file **out,
                 xio_error *err);

/** Frees the context (closing files still open). */
void cli_context_free(cli *c);

/* ----------------------------------------------------------- lease.c ---- */

/** Breaks the lease on blob `url` (break period `period_s`, 0..60); a blob without
 *  a lease is fine. `*remaining_s` (may be NULL) gets the seconds until the lease
 *  ends. */
xio_err cli_lease_break(cli *c, const char *url, int period_s, int *remaining_s, xio_error *err);

/* --------------------------------------------------------- hugemem.c ---- */

/** Maps `size` bytes (rounded up to 2 MiB) of zeroed private memory at a 2 MiB
 *  boundary, advised for transparent huge pages; NULL with errno set when mmap
 *  fails. The caller owns it and releases it with cli_huge_unmap(p, size). */
void *cli_huge_map(size_t size);

/** Releases a mapping of cli_huge_map with the same `size`; NULL does nothing. */
void cli_huge_unmap(void *p, size_t size);

/* -------------------------------------------------------- transfer.c ---- */

/** --in-flight N (1..64) of put and get into c->in_flight; NULL `text` leaves
 *  `dflt`. Returns CLI_CONTINUE, or 2 after a usage error naming the bad value. */
int cli_take_in_flight(cli *c, const char *text, int dflt);

/** Catches SIGINT and SIGTERM for a transfer: from then on the first one sets the
 *  flag cli_stop_signal reads (the transfer stops issuing requests) and cancels the
 *  context (xio_ctx_cancel) with a grace of 2 s, or XIO_STOP_GRACE_SECONDS, for the
 *  requests on their way; a second one cuts them at once. Each says so on stderr.
 *  Returns CLI_CONTINUE, or 1 after saying that XIO_STOP_GRACE_SECONDS is bad. */
int cli_catch_stop_signals(cli *c);

/** The context the stop signals cancel (cli_context calls it as it makes one); a
 *  stop signal that came before is applied to it at once. */
void cli_stop_attach(xio_ctx *ctx);

/** Forgets that context, before it is freed, once no signal handler uses it. */
void cli_stop_detach(void);

/** The stop signal received (SIGINT or SIGTERM), or 0 when none came. */
int cli_stop_signal(void);

/** "SIGINT" or "SIGTERM": the stop signal received, for a message. */
const char *cli_stop_name(void);

/** XIO_ECANCELED ("interrupted by SIGINT", in `err`) when a stop signal came,
 *  else XIO_OK. */
xio_err cli_check_stop(xio_error *err);

/** The exit status of a transfer stopped by a signal: 128 + the signal (130, 143). */
int cli_stop_status(void);

/** Says on stderr that `cmd` was stopped before it changed anything ("xio: CMD
 *  interrupted by SIGTERM before " and the formatted rest); returns cli_stop_status. */
int cli_stopped_before(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Says on stderr that a stop signal came as `cmd` finished and `done` is complete;
 *  returns cli_stop_status. */
int cli_stopped_after(const char *cmd, const char *done);

/** 1 when the local paths `a` and `b` name the same existing file; 0 otherwise (a
 *  URL, a missing file). */
int cli_same_file(const char *a, const char *b);

/** Says (unless --quiet) how many of `cmd`'s tries the service throttled (503
 *  ServerBusy, 500 OperationTimedOut), when any was. */
void cli_say_throttled(const cli *c, const char *cmd, uint64_t tries);

/* ---------------------------------------------------------- window.c ---- */

/** Where a window's buffers start: a multiple of this (what O_DIRECT asks for). */
#define CLI_BUF_ALIGN ((size_t)4096)

/** One request and, when the window has buffers, the buffer it uses. */
typedef struct cli_slot {
  char *buf; /* NULL in a window without buffers; CLI_BUF_ALIGN-aligned */
  xio_io io;
  int busy;
} cli_slot;

/** Runs when a slot's request has completed successfully, in submission order,
 *  before the slot is reused; a failure stops the transfer. */
typedef xio_err (*cli_slot_fn)(cli_slot *s, void *ud, xio_error *err);

/** A ring of slots: at most `n` requests in flight, and `n` buffers of `bufsize`
 *  (none when `bufsize` is 0: the requests then point into the caller's memory),
 *  each starting on a CLI_BUF_ALIGN boundary. */
typedef struct cli_window {
  cli_slot *slots;
  char *mem; /* the buffers, one after the other: a cli_huge_map of n x stride */
  size_t stride;
  int n;
  int next;
  size_t bufsize;
  cli_slot_fn done;
  void *ud;
} cli_window;

/** Sets up `n` slots and, when `bufsize` is not 0, maps their buffers (backed by memory
 *  only once used; the window owns them until cli_window_free). Errors: XIO_ENOMEM. */
xio_err cli_window_init(cli_window *w, int n, size_t bufsize, cli_slot_fn done, void *ud,
                        xio_error *err);

/** The next slot, once its previous request has completed and been handled.
 *  Errors: that request's failure, the completion function's, XIO_ENOMEM. */
xio_err cli_window_next(cli_window *w, cli_slot **out, xio_error *err);

/** Submits `op` on [off, off+len) of `f` with `buf` (the slot's buffer, or memory
 *  of the caller's that stays valid until the slot completes). Errors: as
 *  xio_file_submit. */
xio_err cli_window_submit(cli_window *w, cli_slot *s, xio_file *f, xio_io_op op, uint64_t off,
                          size_t len, void *buf, xio_error *err);

/** 1 and the offset of the oldest request still in flight in `*off`, or 0 when
 *  none is. */
int cli_window_oldest(const cli_window *w, uint64_t *off);

/** Waits for and handles every request in flight; the first failure wins. */
xio_err cli_window_drain(cli_window *w, xio_error *err);

/** Waits for and handles, oldest first, the requests in flight that start below
 *  `limit` (requests are submitted in ascending order of offset); the first
 *  failure wins. */
xio_err cli_window_wait_below(cli_window *w, uint64_t limit, xio_error *err);

/** Waits for whatever is still in flight (without handling it) and frees. */
void cli_window_free(cli_window *w);

/* ---------------------------------------------------------- source.c ---- */

/** put's local file, read chunk by chunk into a ring of memory that the requests
 *  point into: file byte `off` at ring offset off % size. The ring is one mapping,
 *  2 MiB-aligned and advised for transparent huge pages (fewer pages to pin per
 *  O_DIRECT read, fewer faults), so a span is contiguous only up to the ring's
 *  end: a request must not cross it. The file must not change while it is read:
 *  what it was when put opened it (`st`) is what cli_source_check compares with. */
typedef struct cli_source {
  const char *path;
  int fd;                /* the caller's descriptor, for buffered reads */
  int dfd;               /* the same file opened with O_DIRECT, or -1 */
  int direct;            /* 1 while O_DIRECT reads are in use (none refused) */
  char *ring;            /* size bytes at a 2 MiB boundary (NULL for an empty file) */
  size_t size;           /* the ring's bytes */
  uint64_t file_size;    /* what the file held when put started */
  uint64_t bytes_direct; /* read with O_DIRECT */
  struct stat st;        /* the file when put started: identity, size and times */
  int changed;           /* a change of the file was seen: the upload is void */
} cli_source;

/** Sets up the source for the file `path`, open for reading as `fd` (not taken
 *  over), with a ring of `size` bytes (a multiple of 4 MiB); `direct` 0 reads
 *  everything buffered. The file's size, identity and times are taken from `fd`
 *  now (s->file_size, s->st). Errors: what fstat and mmap report (XIO_ENOMEM and
 *  the like). */
xio_err cli_source_open(cli_source *s, const char *path, int fd, size_t size, int direct,
                        xio_error *err);

/** Reads file bytes [off, off + n) into the ring (never more than one 4 MiB-aligned
 *  chunk); what the ring held for offsets a ring's length below is overwritten,
 *  up to the end of the 4 KiB block holding off + n - 1 when that is the file's
 *  last partial block, read with O_DIRECT.
 *  Errors: what pread reports, XIO_EIO when the file ends early (it shrank: the
 *  message says so and s->changed is set). */
xio_err cli_source_load(cli_source *s, uint64_t off, size_t n, xio_error *err);

/** Checks that the file is still as it was when the source was opened: the same
 *  size, modification time and status change time, and its path still naming it.
 *  put calls it before each load and once more after the last write was
 *  acknowledged. Errors: XIO_EIO with the message "PATH changed while it was being
 *  uploaded (WHAT CHANGED)" and s->changed set; what fstat reports. */
xio_err cli_source_check(cli_source *s, xio_error *err);

/** Where file byte `off` is in the ring (valid up to the ring's end: for
 *  size - off % size bytes). */
const char *cli_source_at(const cli_source *s, uint64_t off);

/** Unmaps the ring and closes the O_DIRECT descriptor; safe to repeat. */
void cli_source_close(cli_source *s);

/* ------------------------------------------------------- localdest.c ---- */

/**
 * Where a transfer from `source` (a blob URL, a file:// URL or a path) writes the
 * local file LOCAL: `local` itself, or, when it names a directory (or ends with
 * '/'), the file in it named after the source, the last segment of the blob's
 * name (decoded) or of the source's path. `*out` is malloc'd (xio_free). Errors,
 * before anything is written: XIO_EINVAL when that path is a directory or the
 * source names no file ("." or a container URL), what stat reports for a LOCAL
 * ending with '/' that names no directory, XIO_EPARSE for a malformed source URL,
 * XIO_ENOMEM.
 */
xio_err cli_local_dest(const char *local, const char *source, char **out, xio_error *err);

/* ------------------------------------------------------- localfile.c ---- */

/** The partial file TARGET.xio-partial through which a local file is written,
 *  owned by one run: opened never through a symbolic link, locked (flock) from its
 *  open to its rename or removal, renamed onto TARGET only by that run. */
typedef struct cli_partial {
  char *target; /* the file it becomes (owned) */
  char *path;   /* TARGET.xio-partial (owned) */
  int fd;       /* open for reading and writing, under this run's lock; -1 when closed */
  dev_t dev;    /* the file opened, to check that the path still names it */
  ino_t ino;
} cli_partial;

/** Sets `p` up for `target` (its names; nothing opened, fd -1). Errors: XIO_ENOMEM. */
xio_err cli_partial_init(cli_partial *p, const char *target, xio_error *err);

/**
 * Opens the partial file for this run alone and takes its lock: a new, empty file
 * (mode 0600), which replaces one an interrupted run left; or with `resume` the one
 * such a run left, as it is. Errors, the file untouched: XIO_EBUSY (another run holds
 * it; the message names its process when /proc/locks does), XIO_EINVAL (a symbolic
 * link, not a regular file, or a file with other names), XIO_EPERM (another user's),
 * what open reports (ENOENT with `resume` and no partial file), all with the
 * operation CreateLocalFile and the partial path as target.
 */
xio_err cli_partial_open(cli_partial *p, int resume, xio_error *err);

/**
 * Makes the partial file the target: fsyncs it, gives it the mode of the regular
 * file it replaces (owner and group too where permitted) or, for a new file,
 * `mode` less the umask; renames it onto the target while the path still names
 * this run's file, and fsyncs the directory. Without `replace` a target that
 * exists by then is kept (RENAME_NOREPLACE). Closes it on success (p->fd -1).
 * Errors (the partial file left open, for cli_partial_discard): XIO_EEXIST, XIO_ECHANGED
 * (the path was replaced or removed by another process), what fsync and rename
 * report.
 */
xio_err cli_partial_commit(cli_partial *p, mode_t mode, int replace, xio_error *err);

/** Removes the partial file while the path still names this run's file, and closes
 *  it; nothing when it is not open. */
void cli_partial_discard(cli_partial *p);

/** Closes the partial file (releasing the lock), keeping it for --resume. */
void cli_partial_close(cli_partial *p);

/** Closes (keeping the file) and frees the names; safe to repeat. */
void cli_partial_free(cli_partial *p);

/* ----------------------------------------------------------- merge.c ---- */

/** Issues one request over [start, end). */
typedef xio_err (*cli_merge_fn)(uint64_t start, uint64_t end, void *ud, xio_error *err);

/** Turns ascending, disjoint spans into requests: spans whose gaps are at most
 *  `gap` bytes (and, with `gap_within_data`, at most the data bytes already in the
 *  request) share a request, and no request is longer than `max` bytes. */
typedef struct cli_merge {
  uint64_t gap, max;
  int gap_within_data;
  uint64_t start, end; /* the pending request; empty when equal */
  uint64_t data;       /* bytes of spans in the pending request */
  uint64_t requests;   /* issued so far */
  uint64_t bridged;    /* bytes of gaps inside requests (not data) */
  cli_merge_fn emit;
  void *ud;
} cli_merge;

/** Starts a merge that issues its requests through `emit`. Cannot fail. */
void cli_merge_init(cli_merge *m, uint64_t gap, int gap_within_data, uint64_t max,
                    cli_merge_fn emit, void *ud);

/** Adds the span [s, e), past every span added before; issues the requests it
 *  completes. Errors: those of `emit`. */
xio_err cli_merge_span(cli_merge *m, uint64_t s, uint64_t e, xio_error *err);

/** Issues the pending request (after the last span). Errors: those of `emit`. */
xio_err cli_merge_flush(cli_merge *m, xio_error *err);

/* ---------------------------------------------------------- dryrun.c ---- */

/** The REST operations a dry run counts (docs/api.md's trace table). */
typedef enum cli_op {
  CLI_OP_PUT_PAGE,         /* Put Page (update): XIOTypeWriteFile */
  CLI_OP_CLEAR,            /* Put Page clear: XIOTypeZeroFile */
  CLI_OP_GET_BLOB,         /* Get Blob (a range): XIOTypeReadFile */
  CLI_OP_PUT_BLOB,         /* Put Blob (a page blob created, or refused: it exists) */
  CLI_OP_CREATE_CONTAINER, /* Create Container */
  CLI_OP_PROPERTIES,       /* Get Blob Properties */
  CLI_OP_SET_METADATA,     /* Set Blob Metadata (kind, logical size, incomplete mark) */
  CLI_OP_RESIZE,           /* Set Blob Properties (resize) */
  CLI_OP_PAGE_RANGES,      /* Get Page Ranges */
  CLI_OP_DELETE,           /* Delete Blob, a snapshot's delete */
  CLI_OP_LEASE,            /* Lease Blob */
  CLI_OP_SNAPSHOT,         /* Snapshot Blob */
  CLI_OP_LIST,             /* List Blobs */
  CLI_OP_COPY,             /* Copy Blob */
  CLI_NOPS
} cli_op;

/** What a real run would send (requests by operation, with the bytes of Put Page,
 *  clear and Get Blob) and write to a local file. Zero-initialise it. */
typedef struct cli_plan {
  uint64_t n[CLI_NOPS];
  uint64_t bytes[CLI_NOPS];
  uint64_t local_bytes; /* written to `local` */
  const char *local;    /* the local file a real run writes, or NULL (borrowed) */
} cli_plan;

/** Counts `n` requests of `op` carrying (or reading, or clearing) `bytes`. */
void cli_plan_add(cli_plan *p, cli_op op, uint64_t n, uint64_t bytes);

/** Adds the requests `t` counts of a transfer into a blob (samples_target.h). */
void cli_plan_add_target(cli_plan *p, const samples_target_plan *t);

/** The plan's requests, all operations. */
uint64_t cli_plan_requests(const cli_plan *p);

/** Prints the plan of the running command from `source` (NULL: none) to `target`
 *  (log-safe):
 *  "dry run: CMD SOURCE -> TARGET (nothing was sent or written)", "would send N
 *  requests: ...; would read SIZE" and, with a local file, "would write SIZE to
 *  FILE"; with --json one object ("dry_run": true, "requests", "operations",
 *  "bytes_sent", "bytes_cleared", "bytes_read", "local_bytes"). */
void cli_plan_print(const cli *c, const char *source, const char *target, const cli_plan *p);

/* -------------------------------------------------------- progress.c ---- */

/** A progress bar on stderr (samples_progress.h): on a terminal, or anywhere with
 *  --progress; never with --quiet or --json. */
typedef samples_progress cli_progress;

void cli_progress_start(cli_progress *p, const cli *c, const char *label, uint64_t total);
void cli_progress_add(cli_progress *p, uint64_t n);
void cli_progress_end(cli_progress *p);

#endif /* XIO_CLI_H */
