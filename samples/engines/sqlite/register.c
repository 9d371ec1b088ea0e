/*
 * register.c - the entry points: xio_sqlite_register() for programs that link SQLite,
 * and, in the loadable extension, sqlite3_xio_init() (also under the names SQLite
 * derives from the module's file name, and sqlite3_extension_init). Loading makes the
 * VFS the process's default and stays loaded after the loading connection closes
 * (SQLITE_OK_LOAD_PERMANENTLY); the SQL functions are added to every connection.
 */
#include "sq_int.h"
#include "xio_sqlite.h"

#ifdef XIO_SQLITE_EXTENSION
SQLITE_EXTENSION_INIT1
#endif

/* Runs for every new connection (sqlite3_auto_extension). */
static int on_connection(sqlite3 *db, char **errmsg, const void *api) {
  (void)errmsg, (void)api;
  return xsq_functions(db);
}

static int register_all(int make_default) {
  int rc = xsq_register(make_default);
  if (rc == SQLITE_OK) rc = sqlite3_auto_extension((void (*)(void))on_connection);
  return rc;
}

int xio_sqlite_register(int make_default) { return register_all(make_default); }

const char *xio_sqlite_last_error(void) { return xsq_last_error(); }

#ifdef XIO_SQLITE_EXTENSION
#define EXPORT __attribute__((visibility("default")))
EXPORT int sqlite3_xio_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);
EXPORT int sqlite3_xiosqlite_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);
EXPORT int sqlite3_extension_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api);

int sqlite3_xio_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  int rc = register_all(1);
  if (rc == SQLITE_OK) rc = xsq_functions(db);
  if (rc != SQLITE_OK) {
    *errmsg = sqlite3_mprintf("xio: cannot register the VFS (%s)", sqlite3_errstr(rc));
    return rc;
  }
  return SQLITE_OK_LOAD_PERMANENTLY;
}

int sqlite3_xiosqlite_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api) {
  return sqlite3_xio_init(db, errmsg, api);
}

int sqlite3_extension_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api) {
  return sqlite3_xio_init(db, errmsg, api);
}
#endif
