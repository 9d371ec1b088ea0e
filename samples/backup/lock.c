/*
 * lock.c - a backup run's hold on its directory (backup_int.h): DIR is made when
 * missing, private (0700 whatever the umask), and locked for the run (an flock on
 * DIR/lock), so that only one backup writes it at a time. An existing DIR is the
 * user's to set and is not changed; when it lets other users in, the run says so.
 * A run that fails in the DIR it made leaves none behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backup_int.h"

/* An existing DIR that lets other users in gets a warning: its files are private
 * (0600), but they can list them and read what an older xio left readable. DIR is
 * the user's to set, so it is not changed. */
static void warn_if_open(const xio_backup_options *o, const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & 077)) return;
  bk_say(o, XIO_BACKUP_NOTE_DIR_OPEN,
         "%s is open to other users (mode %03o): `chmod 700 %s` keeps its backups private", dir,
         (unsigned)(st.st_mode & 0777), dir);
}

xio_err bk_lock_dir(const xio_backup_options *o, const char *dir, int *lock, int *made,
                    xio_error *err) {
  char path[4096];
  *made = mkdir(dir, 0700) == 0;
  if (!*made && errno != EEXIST) return xio_error_from_errno(err, errno, "Backup", "mkdir", dir);
  if (*made && chmod(dir, 0700) != 0)
    return xio_error_from_errno(err, errno, "Backup", "chmod", dir);
  if (!*made) warn_if_open(o, dir);
  xio_err rc = bk_path(dir, "lock", path, sizeof path, err);
  if (rc != XIO_OK) return rc;
  *lock = bk_open_private(path, O_RDWR);
  if (*lock < 0) return xio_error_from_errno(err, errno, "Backup", "open", path);
  if (flock(*lock, LOCK_EX | LOCK_NB) != 0) {
    xio_error_set(err, XIO_EBUSY, "another xio backup is writing %.400s", dir);
    xio_error_set_operation(err, "Backup");
    return XIO_EBUSY;
  }
  return XIO_OK;
}

/* A run that failed in the DIR it made leaves no DIR behind when nothing but its
 * lock is there (rmdir refuses a directory that holds anything else). */
void bk_unmake_dir(const char *dir) {
  char path[4096];
  xio_error e;
  if (bk_path(dir, "lock", path, sizeof path, &e) == XIO_OK) unlink(path);
  rmdir(dir);
}
