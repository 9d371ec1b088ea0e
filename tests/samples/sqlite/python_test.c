/*
 * python_test.c - Debian's Python with its sqlite3 module loading the extension,
 * then forking workers with multiprocessing (the fork start method, Python's default
 * on Linux) while its own connection holds a database: each worker writes and reads
 * a database of its own and is refused the parent's, and the connection it inherited
 * fails instead of hanging; the parent goes on writing afterwards. The whole run has
 * a deadline: a worker that hangs fails the test.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "scratch.h"
#include "sqfix.h"
#include "test.h"

#define PYTHON "/usr/bin/python3"

static const char script[] =
    "import multiprocessing, sqlite3, sys\n"
    "\n"
    "ext, parent_url, child_url = sys.argv[1:4]\n"
    "if not hasattr(sqlite3.Connection, 'enable_load_extension'):\n"
    "    print('this sqlite3 module cannot load extensions')\n"
    "    sys.exit(77)\n"
    "\n"
    "def failure(call):\n"
    "    try:\n"
    "        call()\n"
    "        return 'no error'\n"
    "    except sqlite3.Error as e:\n"
    "        return type(e).__name__\n"
    "\n"
    "def work(i):\n"
    "    db = sqlite3.connect('%s%d.sqlite' % (child_url, i))\n"
    "    db.execute('PRAGMA journal_mode=WAL')\n"
    "    db.execute('CREATE TABLE t(x)')\n"
    "    db.executemany('INSERT INTO t VALUES (?)', [(n,) for n in range(1, 101)])\n"
    "    db.commit()\n"
    "    total = db.execute('SELECT sum(x) FROM t').fetchone()[0]\n"
    "    db.close()\n"
    "    refused = failure(lambda: sqlite3.connect(parent_url).execute('SELECT 1 FROM t'))\n"
    "    inherited = failure(lambda: parent.execute('SELECT count(*) FROM t').fetchone())\n"
    "    why = sqlite3.connect(':memory:').execute('SELECT xio_last_error()').fetchone()[0]\n"
    "    return total, refused, inherited, 'fork' in why\n"
    "\n"
    "loader = sqlite3.connect(':memory:')\n"
    "loader.enable_load_extension(True)\n"
    "loader.load_extension(ext)\n"
    "loader.close()\n"
    "parent = sqlite3.connect(parent_url)\n"
    "parent.execute('CREATE TABLE t(x)')\n"
    "parent.execute('INSERT INTO t VALUES (1)')\n"
    "parent.commit()\n"
    "with multiprocessing.get_context('fork').Pool(2) as pool:\n"
    "    results = pool.map_async(work, [1, 2]).get(timeout=50)\n"
    "parent.execute('INSERT INTO t VALUES (2)')\n"
    "parent.commit()\n"
    "print(results, parent.execute('SELECT sum(x) FROM t').fetchone()[0])\n"
    "parent.close()\n";

TEST(python_multiprocessing_fork_workers_open_their_own_databases) {
  if (access(PYTHON, X_OK) != 0)
    FAIL("no " PYTHON ": scripts/install-deps.sh installs the python3 package");
  sqfix fx;
  sqfix_setup(&fx);
  char path[512], out_path[512], url[512], prefix[512];
  test_scratch_file(path, sizeof path, "xio-sqlite-fork-py");
  test_scratch_file(out_path, sizeof out_path, "xio-sqlite-fork-out");
  FILE *f = fopen(path, "w");
  ASSERT(f && fputs(script, f) >= 0 && fclose(f) == 0);
  sqfix_url(&fx, "parent.sqlite", url, sizeof url);
  sqfix_url(&fx, "worker", prefix, sizeof prefix);
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0); /* its own group: the deadline kills the workers too */
    int fd = open(out_path, O_WRONLY | O_TRUNC);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(127);
    execl(PYTHON, PYTHON, path, SQLITE_EXT, url, prefix, (char *)NULL);
    _exit(127);
  }
  int st = sqfix_wait(pid, 120, "python3 with multiprocessing");
  char *out = test_read_file(out_path);
  if (st == 77) FAIL("Debian's python3 loads extensions; this one cannot: %s", out);
  if (st != 0) FAIL("python3 exited %d: %s", st, out);
  ASSERT_STR_EQ(out, "[(5050, 'OperationalError', 'OperationalError', True), (5050, "
                     "'OperationalError', 'OperationalError', True)] 3\n");
  free(out);
}
