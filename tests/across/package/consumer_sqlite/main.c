/*
 * main.c - a program outside the project that embeds the installed SQLite VFS:
 * registers it as the default VFS, then uses a database at a local path (which the
 * VFS hands to SQLite's own VFS) and prints "hello, xio_sqlite" when the row it
 * wrote reads back. Usage: consumer_sqlite DBPATH
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "xio_sqlite.h"

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (xio_sqlite_register(1) != SQLITE_OK) {
    fprintf(stderr, "register: %s\n", xio_sqlite_last_error());
    return 1;
  }
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_open(argv[1], &db);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, "CREATE TABLE t(v TEXT); INSERT INTO t VALUES('hello, xio_sqlite');",
                      NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "SELECT v FROM t", -1, &st, NULL);
  if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    puts((const char *)sqlite3_column_text(st, 0));
  else
    fprintf(stderr, "sqlite: %s\n", db ? sqlite3_errmsg(db) : "no memory");
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : 1;
}
