/*
 * firstline.c - a target read from a file: the first line, without its line end and
 * the blanks around it, the lines after it blank. The xio command's @FILE and the
 * nbdkit plugin's url=@FILE read targets this way, so that a URL with a SAS stays
 * out of the command line. What is read is never quoted: the caller's message
 * names the file and what is wrong with it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>

#include "samples_common.h"

static int is_blank(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

/* Strips the line end and the blanks around `line`; returns its new length. */
static size_t trim(char *line) {
  size_t n = strlen(line);
  while (n && is_blank((unsigned char)line[n - 1]))
    line[--n] = '\0';
  size_t lead = strspn(line, " \t");
  memmove(line, line + lead, n - lead + 1);
  return n - lead;
}

/* What is wrong with the characters of the trimmed, non-empty `line`, or NULL. */
static const char *check_chars(const char *line) {
  for (const char *p = line; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) return "holds control characters in its first line";
  if (line[0] == '@') return "holds a line that starts with '@' (write a local path ./@name)";
  return NULL;
}

const char *samples_read_first_line(FILE *f, int one_line, char *line, size_t size, int *errnum) {
  *errnum = 0;
  if (!fgets(line, (int)size, f)) {
    *errnum = ferror(f) ? errno : 0;
    return *errnum ? "cannot be read" : "is empty";
  }
  size_t n = strlen(line);
  if (n == size - 1 && line[n - 1] != '\n' && !feof(f)) return "has a first line that is too long";
  if (trim(line) == 0) return "has an empty first line";
  const char *wrong = check_chars(line);
  if (wrong) return wrong;
  for (int ch; !one_line && (ch = getc(f)) != EOF;)
    if (!is_blank(ch)) return "holds more than one line (the target must be its only line)";
  if (ferror(f)) {
    *errnum = errno;
    return "cannot be read";
  }
  return NULL;
}
