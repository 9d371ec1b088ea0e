/*
 * localfile.c - the local files a command writes.
 *
 * A local file that get or restore makes (LOCAL, TARGET) is written as
 * PATH.xio-partial and renamed onto PATH once complete and fsynced, so that PATH is
 * never half-written. The partial file belongs to one run:
 *
 *  - It is opened without following a symbolic link, and kept only when it is a
 *    regular file of this user with no other name (O_NOFOLLOW, then fstat): a link
 *    planted there by anyone who can write the directory is refused, never
 *    written through.
 *  - The run holds an exclusive flock on it from its open to its rename or removal.
 *    A second run into the same PATH (a retry while the first runs, a cron job
 *    beside an operator) is refused, naming the process that holds it, instead of
 *    rewriting the first one's bytes. Once the lock is taken the path must still
 *    name the file locked; if its owner renamed or removed it in between, the open
 *    starts again.
 *  - A partial file no run holds is what an interrupted run left: get --resume
 *    continues it; any other run removes it and makes a new one (O_EXCL).
 *  - It is made 0600 and given its final mode just before the rename: the mode of
 *    the file it replaces, as cp(1) keeps it (and its owner and group where that is
 *    permitted), or for a new file the mode the command asks for less the umask.
 *  - Only the run that holds the lock renames it, and only while the path still
 *    names its file; without --force the rename refuses a PATH that appeared
 *    meanwhile (RENAME_NOREPLACE), so a run never replaces what it was told to keep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "cli.h"

#define PARTIAL_SUFFIX ".xio-partial"

/* How often an open starts again because the path stopped naming the file it
 * locked (its owner renamed or removed it): each time another run finished or left
 * in between, so a few suffice. */
#define PARTIAL_TRIES 8

xio_err cli_partial_init(cli_partial *p, const char *target, xio_error *err) {
  memset(p, 0, sizeof *p);
  p->fd = -1;
  size_t n = strlen(target) + sizeof PARTIAL_SUFFIX;
  p->target = xio_strdup(target);
  p->path = xio_malloc(n);
  if (!p->target || !p->path) {
    cli_partial_free(p);
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  }
  snprintf(p->path, n, "%s%s", target, PARTIAL_SUFFIX);
  return XIO_OK;
}

/* A refusal of the partial file: `code`, the message, operation and target. */
static xio_err refuse(const cli_partial *p, xio_err code, const char *why, xio_error *err) {
  xio_error_set(err, code, "%s %s", p->path, why);
  xio_error_set_operation(err, "CreateLocalFile");
  xio_error_set_target(err, p->path);
  return code;
}

/* 1 when the partial path still names the file this run opened. */
static int names_ours(const cli_partial *p) {
  struct stat st;
  return lstat(p->path, &st) == 0 && st.st_dev == p->dev && st.st_ino == p->ino;
}

/* The process that holds a flock on the file (dev, ino), read from /proc/locks;
 * 0 when none can be named (no /proc, another pid namespace). */
static long lock_holder(dev_t dev, ino_t ino) {
  FILE *f = fopen("/proc/locks", "re");
  if (!f) return 0;
  char line[256], kind[16];
  long pid = 0, p;
  unsigned maj, min;
  unsigned long long i;
  while (!pid && fgets(line, sizeof line, f))
    if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &p, &maj, &min, &i) == 5 &&
        strcmp(kind, "FLOCK") == 0 && maj == major(dev) && min == minor(dev) && i == ino && p > 0)
      pid = p;
  fclose(f);
  return pid;
}

/* Another run holds the partial file: XIO_EBUSY, naming it. */
static xio_err busy(const cli_partial *p, const struct stat *st, xio_error *err) {
  char who[48] = "";
  long pid = lock_holder(st->st_dev, st->st_ino);
  if (pid > 0) snprintf(who, sizeof who, " (process %ld)", pid);
  char why[200];
  snprintf(why, sizeof why,
           "is being written by another run%s: wait for it to end, or stop it, before "
           "writing this file again",
           who);
  return refuse(p, XIO_EBUSY, why, err);
}

/* An open that failed with `e`: a symbolic link at the path gets its own message. */
static xio_err open_failed(const cli_partial *p, int e, xio_error *err) {
  struct stat st;
  if (e == ELOOP && lstat(p->path, &st) == 0 && S_ISLNK(st.st_mode))
    return refuse(p, XIO_EINVAL,
                  "is a symbolic link: a partial file is never written through one; remove "
                  "it (and find out who made it)",
                  err);
  return xio_error_from_errno(err, e, "CreateLocalFile", "open", p->path);
}

/* Refuses a partial file this run did not make and may not take over: not a
 * regular file, another user's, or one with other names (a hard link to a file
 * elsewhere). */
static xio_err check_owned(const cli_partial *p, const struct stat *st, xio_error *err) {
  char why[200];
  if (!S_ISREG(st->st_mode)) return refuse(p, XIO_EINVAL, "is not a regular file: remove it", err);
  if (st->st_uid != geteuid()) {
    snprintf(why, sizeof why, "belongs to another user (uid %lu): remove it, or write elsewhere",
             (unsigned long)st->st_uid);
    return refuse(p, XIO_EPERM, why, err);
  }
  if (st->st_nlink != 1) {
    snprintf(why, sizeof why,
             "has %lu names (hard links): writing it would change a file elsewhere; remove it",
             (unsigned long)st->st_nlink);
    return refuse(p, XIO_EINVAL, why, err);
  }
  return XIO_OK;
}

/* Opens the path for reading and writing, never through a symbolic link: made anew
 * (O_EXCL, *created 1) unless `resume` or it exists, else as it is (without blocking
 * on a FIFO someone put there). -1 with errno set when neither works. */
static int open_path(const char *path, int resume, int *created) {
  *created = 0;
  if (!resume) {
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) {
      *created = fd >= 0;
      return fd;
    }
  }
  return open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/* Opens the partial file, checks that this run may write it and takes its lock. */
static xio_err open_locked(cli_partial *p, int resume, int *created, xio_error *err) {
  p->fd = open_path(p->path, resume, created);
  if (p->fd < 0) return open_failed(p, errno, err);
  struct stat st;
  xio_err rc = XIO_OK;
  if (fstat(p->fd, &st) != 0)
    rc = xio_error_from_errno(err, errno, "CreateLocalFile", "fstat", p->path);
  if (rc == XIO_OK) rc = check_owned(p, &st, err);
  if (rc == XIO_OK && flock(p->fd, LOCK_EX | LOCK_NB) != 0)
    rc = errno == EWOULDBLOCK
             ? busy(p, &st, err)
             : xio_error_from_errno(err, errno, "CreateLocalFile", "flock", p->path);
  if (rc == XIO_OK && fcntl(p->fd, F_SETFL, 0) != 0) /* O_NONBLOCK off */
    rc = xio_error_from_errno(err, errno, "CreateLocalFile", "fcntl", p->path);
  if (rc != XIO_OK) {
    close(p->fd);
    p->fd = -1;
    return rc;
  }
  p->dev = st.st_dev;
  p->ino = st.st_ino;
  return XIO_OK;
}

xio_err cli_partial_open(cli_partial *p, int resume, xio_error *err) {
  for (int tries = 0; tries < PARTIAL_TRIES; tries++) {
    int created;
    xio_err rc = open_locked(p, resume, &created, err);
    if (rc != XIO_OK) return rc;
    int ours = names_ours(p);
    if (ours && (resume || created)) return XIO_OK;
    if (ours) unlink(p->path); /* an interrupted run's, held by none: a new one instead */
    close(p->fd);
    p->fd = -1;
  }
  return refuse(p, XIO_EBUSY,
                "kept being renamed or removed by other processes while this run opened it: "
                "try again",
                err);
}

/* The process's umask. umask(2) reads it only by setting it: for the instant
 * between the two calls it is 077, so a file another thread makes meanwhile is
 * only more private. */
static mode_t current_umask(void) {
  mode_t m = umask(077);
  umask(m);
  return m;
}

/* Gives the partial file its final mode: that of the regular file it replaces, as
 * cp(1) keeps it (owner and group too where permitted), else `mode` less the umask.
 * A file system that takes no mode leaves 0600, which is never more open. */
static void final_mode(const cli_partial *p, mode_t mode, int replace) {
  struct stat st;
  if (replace && lstat(p->target, &st) == 0 && S_ISREG(st.st_mode)) {
    if (fchown(p->fd, st.st_uid, st.st_gid) != 0 && fchown(p->fd, (uid_t)-1, st.st_gid) != 0) {
      /* neither may be given away: the file stays this user's */
    }
    mode = st.st_mode & 0777;
  } else {
    mode &= ~current_umask() & 0777;
  }
  (void)fchmod(p->fd, mode);
}

/* Renames `from` onto `to` unless `to` exists: 0, or the errno (EEXIST when it
 * does). A file system without RENAME_NOREPLACE gets a hard link, which does not
 * replace either; one without hard links a check before the rename. */
static int rename_noreplace(const char *from, const char *to) {
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  if (link(from, to) == 0) return unlink(from) == 0 ? 0 : errno;
  if (errno == EEXIST) return EEXIST;
  struct stat st;
  if (lstat(to, &st) == 0) return EEXIST;
  return rename(from, to) == 0 ? 0 : errno;
}

/* fsyncs the directory that holds `path`. */
static xio_err sync_parent(const char *path, xio_error *err) {
  char *copy = xio_strdup(path);
  if (!copy) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  const char *dir = dirname(copy);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  xio_err rc = XIO_OK;
  if (fd < 0) {
    rc = xio_error_from_errno(err, errno, "WriteLocalFile", "open", dir);
  } else {
    if (fsync(fd) != 0 && errno != EINVAL)
      rc = xio_error_from_errno(err, errno, "WriteLocalFile", "fsync", dir);
    close(fd);
  }
  xio_free(copy);
  return rc;
}

/* Renames the partial file onto the target (not over an existing one unless
 * `replace`). */
static xio_err move_into_place(const cli_partial *p, int replace, xio_error *err) {
  int e = replace ? (rename(p->path, p->target) == 0 ? 0 : errno)
                  : rename_noreplace(p->path, p->target);
  if (e == EEXIST) {
    xio_error_set(err, XIO_EEXIST,
                  "%s appeared while it was being written (another run made it?); --force "
                  "replaces it",
                  p->target);
    xio_error_set_operation(err, "WriteLocalFile");
    return XIO_EEXIST;
  }
  return e ? xio_error_from_errno(err, e, "WriteLocalFile", "rename", p->target) : XIO_OK;
}

xio_err cli_partial_commit(cli_partial *p, mode_t mode, int replace, xio_error *err) {
  if (fsync(p->fd) != 0)
    return xio_error_from_errno(err, errno, "WriteLocalFile", "fsync", p->path);
  final_mode(p, mode, replace);
  if (!names_ours(p)) {
    xio_error_set(err, XIO_ECHANGED,
                  "%s was replaced or removed by another process while this run wrote it: "
                  "nothing was renamed onto %s",
                  p->path, p->target);
    xio_error_set_operation(err, "WriteLocalFile");
    return XIO_ECHANGED;
  }
  xio_err rc = move_into_place(p, replace, err);
  if (rc != XIO_OK) return rc;
  close(p->fd); /* fsynced: nothing left for close to report; the lock goes with it */
  p->fd = -1;
  return sync_parent(p->target, err);
}

void cli_partial_discard(cli_partial *p) {
  if (p->fd < 0) return;
  if (names_ours(p)) unlink(p->path);
  close(p->fd);
  p->fd = -1;
}

void cli_partial_close(cli_partial *p) {
  if (p->fd >= 0) close(p->fd);
  p->fd = -1;
}

void cli_partial_free(cli_partial *p) {
  cli_partial_close(p);
  xio_free(p->target);
  xio_free(p->path);
  p->target = p->path = NULL;
}
