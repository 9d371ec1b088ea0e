/*
 * examples.c - the example each command's help ends with (`xio help CMD`), one
 * command line a person would type, as git, az and rclone show one: here in one
 * table, so that every command has one (the tests check that each parses).
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "cli.h"

#define BLOB "https://myaccount.blob.core.windows.net/mssql"

static const struct {
  const char *command;
  const char *example; /* after "xio "; a comment after "  # " */
} examples[] = {
    {"create", "create " BLOB "/db.mdf --size 10G"},
    {"grow", "grow " BLOB "/db.mdf --size 20G"},
    {"zero", "zero " BLOB "/db.mdf --offset 1M --length 64K"},
    {"stat", "stat " BLOB "/db.mdf"},
    {"ranges", "ranges " BLOB "/db.mdf"},
    {"put", "put db.mdf " BLOB "/   # the blob takes LOCAL's name: mssql/db.mdf"},
    {"get", "get " BLOB "/db.mdf restored/   # writes restored/db.mdf"},
    {"rm", "rm " BLOB "/old.mdf --with-snapshots"},
    {"sas", "sas " BLOB "/db.mdf --permissions r --expiry 1h"},
    {"lease", "lease break " BLOB "/db.mdf"},
    {"snapshot", "snapshot " BLOB "/db.mdf"},
    {"backup", "backup " BLOB "/db.mdf /backups/db --keep 7"},
    {"restore", "restore /backups/db " BLOB "/db-copy.mdf"},
    {"ls", "ls " BLOB " --prefix db"},
    {"cp", "cp " BLOB "/db.mdf " BLOB "/db-test.mdf"},
    {"emulator", "emulator start --faults 503=10% --seed 7"},
};

const char *cli_example(const char *command) {
  for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
    if (strcmp(examples[i].command, command) == 0) return examples[i].example;
  return NULL;
}
