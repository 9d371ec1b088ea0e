/*
 * xml.c - reading the XML bodies the blob service returns: error bodies, page
 * lists (Get Page Ranges), blob listings (List Blobs) and user delegation keys (Get
 * User Delegation Key, whose Value is wiped from the parsed tree), with libxml2.
 *
 * Safety: a body is parsed from memory with no network access (XML_PARSE_NONET),
 * no external DTD loading and no entity substitution; a body that carries a DTD at
 * all is refused, since the service never sends one and a DTD is the only way to
 * declare entities. libxml2 is initialized once per process (pthread_once) because
 * its first initialization is not thread-safe in older releases; xmlCleanupParser is
 * never called, as other code in the process may use libxml2 too.
 *
 * Quiet: libxml2 reports some failures (an input conversion error in a declared or
 * detected encoding, out of memory) through its generic error handler whatever the
 * parse options say, and the default handler prints to stderr. No library may write
 * to the user's terminal, so each parser runs with a silent generic handler and no
 * structured handler, set on the calling thread only and restored afterwards: in
 * this threaded libxml2 (2.9) both handlers are per-thread state, so a handler the
 * host program set, on its own thread or this one, is left as it was.
 *
 * Strictness: a wrong root, a missing required element, a number that is not a
 * plain decimal uint64, Start > End, or stray text between elements is XIO_EPARSE
 * with a message naming the element. Unknown elements are skipped, so that new
 * service versions keep working. A parser either applies a whole body to its output
 * or leaves the output as it was.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <openssl/crypto.h>

#include <xio/alloc.h>
#include <xio/blob.h>
#include <xio/entra.h>
#include <xio/error_int.h>

#include "xml_int.h"

/* Records `code` and a message in `err` and evaluates to `code`, written out at the
 * failure site so that readers (and the static analyzer) see that path fail. */
#define FAIL_AS(err, code, ...) (xio_error_set((err), (code), __VA_ARGS__), (code))

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void) { xmlInitParser(); }

/* ---------------------------------------------------------------- quiet ---- */

/* The calling thread's libxml2 error handlers, as they were before a parse. */
typedef struct quiet {
  xmlGenericErrorFunc generic;
  void *generic_ctx;
  xmlStructuredErrorFunc structured;
  void *structured_ctx;
} quiet;

static void silent(void *ctx, const char *fmt, ...) { (void)ctx, (void)fmt; }

/* Saves this thread's handlers in *q and silences them. */
static void quiet_begin(quiet *q) {
  pthread_once(&xml_once, xml_init);
  q->generic = xmlGenericError;
  q->generic_ctx = xmlGenericErrorContext;
  q->structured = xmlStructuredError;
  q->structured_ctx = xmlStructuredErrorContext;
  xmlSetGenericErrorFunc(NULL, silent);
  xmlSetStructuredErrorFunc(NULL, NULL);
}

/* Puts back the handlers saved by quiet_begin. */
static void quiet_end(const quiet *q) {
  xmlSetGenericErrorFunc(q->generic_ctx, q->generic);
  xmlSetStructuredErrorFunc(q->structured_ctx, q->structured);
}

/* ------------------------------------------------------------ documents ---- */

/* Parses `body` and checks that its root element is `root_name`. On success the
 * caller frees *doc (xmlFreeDoc). Errors: XIO_EPARSE, XIO_ENOMEM. */
static xio_err parse_doc(const char *body, size_t len, const char *root_name, xmlDoc **doc,
                         xmlNode **root, xio_error *err) {
  *doc = NULL;
  *root = NULL;
  if (len >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0) body += 3, len -= 3; /* BOM */
  if (len == 0) return FAIL_AS(err, XIO_EPARSE, "empty body, wanted <%s>", root_name);
  if (len > INT_MAX) return FAIL_AS(err, XIO_EPARSE, "body too large for <%s>", root_name);
  pthread_once(&xml_once, xml_init);
  /* Out-of-memory, not malformed: libxml2 says so in this thread's last error, or
   * (when it allocates through xio, see <xio/blob_alloc.h>) an allocation failed. */
  unsigned long refused = xio_alloc_failures();
  xmlResetLastError();
  xmlDoc *d = xmlReadMemory(body, (int)len, NULL, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  /* A document may also come back short of what libxml2 could not allocate. */
  int oom = (!d && xmlGetLastError() && xmlGetLastError()->code == XML_ERR_NO_MEMORY) ||
            xio_alloc_failures() != refused;
  xmlResetLastError(); /* frees the copy of the error (and of the body's text) kept there */
  if (oom) {
    xmlFreeDoc(d);
    return FAIL_AS(err, XIO_ENOMEM, "out of memory parsing <%s>", root_name);
  }
  if (!d) return FAIL_AS(err, XIO_EPARSE, "body is not well-formed XML, wanted <%s>", root_name);
  xmlNode *r = xmlDocGetRootElement(d);
  if (d->intSubset || d->extSubset) {
    xmlFreeDoc(d);
    return FAIL_AS(err, XIO_EPARSE, "body carries a DTD, wanted plain <%s>", root_name);
  }
  if (!r || strcmp((const char *)r->name, root_name) != 0) {
    xio_err rc = FAIL_AS(err, XIO_EPARSE, "root element is <%.64s>, wanted <%s>",
                         r ? (const char *)r->name : "", root_name);
    xmlFreeDoc(d);
    return rc;
  }
  *doc = d;
  *root = r;
  return XIO_OK;
}

/* ------------------------------------------------------------- elements ---- */

static int is_elem(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Number of element children of `parent` named `name` (counting stops at 2), and
 * the first of them in *first (NULL when none). */
static int find_child(const xmlNode *parent, const char *name, xmlNode **first) {
  int count = 0;
  *first = NULL;
  for (xmlNode *n = parent->children; n && count < 2; n = n->next) {
    if (!is_elem(n, name)) continue;
    if (count++ == 0) *first = n;
  }
  return count;
}

/* The one child `name` of `parent` (described as `what` in messages). Errors:
 * XIO_EPARSE when it is missing or repeated. */
static xio_err one_child(const xmlNode *parent, const char *what, const char *name, xmlNode **out,
                         xio_error *err) {
  int count = find_child(parent, name, out);
  if (count == 0) return FAIL_AS(err, XIO_EPARSE, "%s has no <%s>", what, name);
  if (count > 1) return FAIL_AS(err, XIO_EPARSE, "%s has more than one <%s>", what, name);
  return XIO_OK;
}

/* Errors: XIO_EPARSE when `el` holds text other than whitespace between its child
 * elements (a container element with character data is not what the service sends). */
static xio_err no_stray_text(const xmlNode *el, const char *what, xio_error *err) {
  for (xmlNode *n = el->children; n; n = n->next) {
    int text = n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE;
    if (text && !xmlIsBlankNode(n)) return FAIL_AS(err, XIO_EPARSE, "%s holds stray text", what);
  }
  return XIO_OK;
}

/* Copies s[0..n) into buf (size bytes), truncating at a UTF-8 character boundary. */
static void copy_span(char *buf, size_t size, const char *s, size_t n) {
  if (!buf || size == 0) return;
  if (n >= size) {
    n = size - 1;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
      n--; /* continuation byte */
  }
  memcpy(buf, s, n);
  buf[n] = '\0';
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Text of `el` (NULL: "") into buf, cut at the first line end when `first_line`,
 * with surrounding whitespace trimmed when `trim`. Errors: XIO_ENOMEM. */
static xio_err text_copy(const xmlNode *el, char *buf, size_t size, int first_line, int trim) {
  copy_span(buf, size, "", 0);
  if (!el) return XIO_OK;
  xmlChar *t = xmlNodeGetContent(el);
  if (!t) return XIO_ENOMEM;
  const char *s = (const char *)t;
  size_t n = first_line ? strcspn(s, "\r\n") : strlen(s);
  if (trim) {
    while (n > 0 && is_space(*s))
      s++, n--;
    while (n > 0 && is_space(s[n - 1]))
      n--;
  }
  copy_span(buf, size, s, n);
  xmlFree(t);
  return XIO_OK;
}

/* Text of `el` as a malloc'd string, or NULL in *out when it is empty. Errors:
 * XIO_ENOMEM. */
static xio_err text_dup(const xmlNode *el, char **out, xio_error *err) {
  *out = NULL;
  xmlChar *t = xmlNodeGetContent(el);
  size_t n = t ? strlen((const char *)t) : 0;
  char *copy = n > 0 ? xio_malloc(n + 1) : NULL;
  if (!t || (n > 0 && !copy)) {
    xmlFree(t);
    return FAIL_AS(err, XIO_ENOMEM, "out of memory reading <%s>", (const char *)el->name);
  }
  if (copy) memcpy(copy, t, n + 1);
  xmlFree(t);
  *out = copy;
  return XIO_OK;
}

/* 1 when `s` is a plain decimal number (digits only) that fits a uint64. */
static int parse_u64(const char *s, uint64_t *out) {
  if (s[0] == '\0' || strspn(s, "0123456789") != strlen(s)) return 0;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno == ERANGE || *end != '\0' || v > UINT64_MAX) return 0;
  *out = (uint64_t)v;
  return 1;
}

/* The number in the one child `name` of `parent`. Errors: XIO_EPARSE (missing,
 * repeated, or not a decimal uint64), XIO_ENOMEM. */
static xio_err child_u64(const xmlNode *parent, const char *what, const char *name, uint64_t *out,
                         xio_error *err) {
  xmlNode *el;
  xio_err rc = one_child(parent, what, name, &el, err);
  if (rc != XIO_OK) return rc;
  xmlChar *t = xmlNodeGetContent(el);
  if (!t) return FAIL_AS(err, XIO_ENOMEM, "out of memory reading %s <%s>", what, name);
  if (!parse_u64((const char *)t, out))
    rc = FAIL_AS(err, XIO_EPARSE, "%s: <%s> \"%.40s\" is not a non-negative integer", what, name,
                 (const char *)t);
  xmlFree(t);
  return rc;
}

/* Marker text of the first <NextMarker> child of `parent`: malloc'd, or NULL when
 * absent or empty. Errors: XIO_ENOMEM. */
static xio_err next_marker_of(const xmlNode *parent, char **out, xio_error *err) {
  xmlNode *el;
  *out = NULL;
  if (find_child(parent, "NextMarker", &el) == 0) return XIO_OK;
  return text_dup(el, out, err);
}

/* ---------------------------------------------------------- error body ---- */

static xio_err read_error(const char *body, size_t len, char *code, size_t code_size, char *message,
                          size_t message_size) {
  xmlDoc *doc;
  xmlNode *root, *el;
  copy_span(code, code_size, "", 0);
  copy_span(message, message_size, "", 0);
  if (!body && len > 0) return XIO_EINVAL;
  xio_err rc = parse_doc(body, len, "Error", &doc, &root, NULL);
  if (rc != XIO_OK) return rc;
  find_child(root, "Code", &el);
  rc = text_copy(el, code, code_size, 0, 1);
  if (rc == XIO_OK) {
    find_child(root, "Message", &el);
    rc = text_copy(el, message, message_size, 1, 0);
  }
  xmlFreeDoc(doc);
  return rc;
}

/* ----------------------------------------------------------- page list ---- */

/* One walk over a <PageList>: counting (validating) or applying. */
typedef struct page_walk {
  xio_ranges *ranges;
  xio_ranges *cleared; /* may be NULL: clear ranges are checked, then dropped */
  int apply;
  size_t npage, nclear;
} page_walk;

/* Reads the Start and End of one <PageRange> or <ClearRange>, the index-th range
 * element (from 1). Errors: XIO_EPARSE, XIO_ENOMEM. */
static xio_err read_range(const xmlNode *el, size_t index, xio_range *out, xio_error *err) {
  char what[48];
  snprintf(what, sizeof what, "%s %zu", (const char *)el->name, index);
  xio_err rc = no_stray_text(el, what, err);
  if (rc == XIO_OK) rc = child_u64(el, what, "Start", &out->start, err);
  if (rc == XIO_OK) rc = child_u64(el, what, "End", &out->end, err);
  if (rc == XIO_OK && out->start > out->end)
    rc = FAIL_AS(err, XIO_EPARSE, "%s: Start %" PRIu64 " > End %" PRIu64, what, out->start,
                 out->end);
  return rc;
}

static xio_err walk_page_list(const xmlNode *root, page_walk *w, xio_error *err) {
  size_t index = 0;
  for (const xmlNode *n = root->children; n; n = n->next) {
    int page = is_elem(n, "PageRange");
    if (!page && !is_elem(n, "ClearRange")) continue;
    xio_range rg;
    xio_err rc = read_range(n, ++index, &rg, err);
    if (rc != XIO_OK) return rc;
    if (!w->apply) {
      *(page ? &w->npage : &w->nclear) += 1;
      continue;
    }
    xio_ranges *to = page ? w->ranges : w->cleared;
    if (to && (rc = xio_ranges_add(to, rg.start, rg.end)) != XIO_OK)
      return xio_error_set(err, rc, "adding a page range failed");
  }
  return XIO_OK;
}

/* Validates the whole list, makes room for its ranges, then adds them, so a failure
 * leaves `ranges` and `cleared` as they were. */
static xio_err apply_page_list(const xmlNode *root, page_walk *w, xio_error *err) {
  xio_err rc = no_stray_text(root, "PageList", err);
  if (rc == XIO_OK) rc = walk_page_list(root, w, err);
  if (rc != XIO_OK) return rc;
  int same = w->cleared == w->ranges; /* one list for both: room for both */
  if (xio_ranges_reserve(w->ranges, w->npage + (same ? w->nclear : 0)) != XIO_OK ||
      (w->cleared && !same && xio_ranges_reserve(w->cleared, w->nclear) != XIO_OK))
    return FAIL_AS(err, XIO_ENOMEM, "out of memory for %zu page ranges", w->npage + w->nclear);
  w->apply = 1;
  return walk_page_list(root, w, err);
}

/* A walk that failed as malformed after an allocation failed on this thread met
 * out-of-memory in libxml2 (which returns an empty text then): XIO_ENOMEM. Also
 * frees the copy of an error libxml2 keeps for this thread. */
static xio_err oom_if_refused(xio_err rc, unsigned long refused, xio_error *err) {
  xmlResetLastError();
  if (rc != XIO_EPARSE || xio_alloc_failures() == refused) return rc;
  return FAIL_AS(err, XIO_ENOMEM, "out of memory reading the response body");
}

static xio_err read_page_list(const char *body, size_t len, xio_ranges *ranges, xio_ranges *cleared,
                              char **next_marker, xio_error *err) {
  xmlDoc *doc;
  xmlNode *root;
  char *marker = NULL;
  if (next_marker) *next_marker = NULL;
  if (!ranges || (!body && len > 0))
    return FAIL_AS(err, XIO_EINVAL, "page list: no body or no output");
  unsigned long refused = xio_alloc_failures();
  xio_err rc = parse_doc(body, len, "PageList", &doc, &root, err);
  if (rc != XIO_OK) return rc;
  page_walk w = {.ranges = ranges, .cleared = cleared};
  rc = next_marker_of(root, &marker, err);
  if (rc == XIO_OK) rc = apply_page_list(root, &w, err);
  xmlFreeDoc(doc);
  rc = oom_if_refused(rc, refused, err);
  if (rc == XIO_OK && next_marker)
    *next_marker = marker;
  else
    xio_free(marker);
  return rc;
}

/* ----------------------------------------------------------- blob list ---- */

/* A listing page's end: on success `marker` (malloc'd or NULL) replaces *next, on
 * failure it is freed and *next kept. Returns `rc`. */
static xio_err keep_marker(xio_err rc, char *marker, char **next) {
  if (rc != XIO_OK) {
    xio_free(marker);
    return rc;
  }
  xio_free(*next);
  *next = marker;
  return XIO_OK;
}

/* Copies the text of the first child `name` of `parent` ("" when absent), trimmed
 * and truncated to `size`. Errors: XIO_ENOMEM. */
static xio_err optional_text(const xmlNode *parent, const char *name, char *buf, size_t size) {
  xmlNode *el;
  find_child(parent, name, &el);
  return text_copy(el, buf, size, 0, 1);
}

/* Reads a blob's <Properties>. Errors: XIO_EPARSE, XIO_ENOMEM. */
static xio_err read_blob_props(const xmlNode *props, const char *what, xio_blob_item *item,
                               xio_error *err) {
  xio_err rc = no_stray_text(props, what, err);
  if (rc == XIO_OK) rc = child_u64(props, what, "Content-Length", &item->size, err);
  if (rc != XIO_OK) return rc;
  rc = optional_text(props, "BlobType", item->blob_type, sizeof item->blob_type);
  if (rc == XIO_OK)
    rc = optional_text(props, "LeaseState", item->lease_state, sizeof item->lease_state);
  if (rc == XIO_OK)
    rc = optional_text(props, "LeaseStatus", item->lease_status, sizeof item->lease_status);
  if (rc == XIO_OK)
    rc = optional_text(props, "LeaseDuration", item->lease_duration, sizeof item->lease_duration);
  if (rc == XIO_OK)
    rc = optional_text(props, "Last-Modified", item->last_modified, sizeof item->last_modified);
  if (rc != XIO_OK) return xio_error_set(err, rc, "out of memory reading %s", what);
  return XIO_OK;
}

/* 1 when `s` is a C identifier, as Azure requires of metadata names. */
static int is_identifier(const char *s) {
  int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_';
  for (const char *p = s; ok && *p; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
         *p == '_';
  return ok;
}

/* Reads a blob's <Metadata> (when present) into item->meta. Errors: XIO_ENOMEM. */
static xio_err read_blob_meta(const xmlNode *el, const char *what, xio_blob_item *item,
                              xio_error *err) {
  xmlNode *md;
  if (find_child(el, "Metadata", &md) == 0) return XIO_OK;
  int count = 0;
  for (const xmlNode *n = md->children; n; n = n->next)
    count += n->type == XML_ELEMENT_NODE;
  if (count == 0) return XIO_OK;
  if (count > XIO_BLOB_MAX_META) count = XIO_BLOB_MAX_META;
  item->meta = xio_calloc((size_t)count, sizeof *item->meta);
  if (!item->meta) return FAIL_AS(err, XIO_ENOMEM, "out of memory reading %s", what);
  for (const xmlNode *n = md->children; n && item->nmeta < count; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    const char *name = (const char *)n->name;
    if (strlen(name) >= sizeof item->meta[0].name || !is_identifier(name)) continue;
    xio_blob_meta *m = &item->meta[item->nmeta];
    snprintf(m->name, sizeof m->name, "%s", name);
    if (text_copy(n, m->value, sizeof m->value, 0, 1) != XIO_OK)
      return FAIL_AS(err, XIO_ENOMEM, "out of memory reading %s", what);
    item->nmeta++;
  }
  return XIO_OK;
}

/* Reads a blob's <Snapshot> (when present) into item->snapshot. */
static xio_err read_blob_snapshot(const xmlNode *el, xio_blob_item *item, xio_error *err) {
  xmlNode *snap;
  if (find_child(el, "Snapshot", &snap) == 0) return XIO_OK;
  return text_dup(snap, &item->snapshot, err);
}

/* Fills `item` from the index-th <Blob> (from 1). On failure `item` owns nothing.
 * Errors: XIO_EPARSE, XIO_ENOMEM. */
static xio_err read_blob(const xmlNode *el, size_t index, xio_blob_item *item, xio_error *err) {
  char what[48];
  xmlNode *name, *props;
  memset(item, 0, sizeof *item);
  snprintf(what, sizeof what, "Blob %zu", index);
  xio_err rc = no_stray_text(el, what, err);
  if (rc == XIO_OK) rc = one_child(el, what, "Name", &name, err);
  if (rc == XIO_OK) rc = one_child(el, what, "Properties", &props, err);
  if (rc == XIO_OK) rc = read_blob_props(props, what, item, err);
  if (rc == XIO_OK) rc = read_blob_meta(el, what, item, err);
  if (rc == XIO_OK) rc = read_blob_snapshot(el, item, err);
  if (rc == XIO_OK) rc = text_dup(name, &item->name, err);
  if (rc == XIO_OK && !item->name) rc = FAIL_AS(err, XIO_EPARSE, "%s has an empty <Name>", what);
  if (rc != XIO_OK) xio__blob_item_free(item);
  return rc;
}

/* Number of <Blob> children of `blobs`. */
static size_t count_blobs(const xmlNode *blobs) {
  size_t count = 0;
  for (const xmlNode *n = blobs->children; n; n = n->next)
    count += is_elem(n, "Blob");
  return count;
}

/* Appends every <Blob> of `blobs` to `out`; on failure `out` keeps only what it
 * held before. Errors: XIO_EPARSE, XIO_ENOMEM. */
static xio_err append_blobs(const xmlNode *blobs, xio_blob_list *out, xio_error *err) {
  size_t count = count_blobs(blobs), old_n = out->n, index = 0;
  if (count == 0) return XIO_OK;
  if (count > SIZE_MAX / sizeof *out->v - old_n)
    return FAIL_AS(err, XIO_ENOMEM, "too many blobs in a listing");
  xio_blob_item *v = xio_realloc(out->v, (old_n + count) * sizeof *v);
  if (!v) return FAIL_AS(err, XIO_ENOMEM, "out of memory for %zu blobs", count);
  out->v = v;
  for (const xmlNode *n = blobs->children; n; n = n->next) {
    if (!is_elem(n, "Blob")) continue;
    xio_err rc = read_blob(n, ++index, &out->v[out->n], err);
    if (rc != XIO_OK) {
      while (out->n > old_n)
        xio__blob_item_free(&out->v[--out->n]);
      return rc;
    }
    out->n++;
  }
  return XIO_OK;
}

static xio_err read_blob_list(const char *body, size_t len, xio_blob_list *out, xio_error *err) {
  xmlDoc *doc;
  xmlNode *root, *blobs;
  char *marker = NULL;
  if (!out || (!body && len > 0))
    return FAIL_AS(err, XIO_EINVAL, "blob list: no body or no output");
  unsigned long refused = xio_alloc_failures();
  xio_err rc = parse_doc(body, len, "EnumerationResults", &doc, &root, err);
  if (rc != XIO_OK) return rc;
  rc = no_stray_text(root, "EnumerationResults", err);
  if (rc == XIO_OK) rc = one_child(root, "EnumerationResults", "Blobs", &blobs, err);
  if (rc == XIO_OK) rc = no_stray_text(blobs, "Blobs", err);
  if (rc == XIO_OK) rc = next_marker_of(root, &marker, err);
  if (rc == XIO_OK) rc = append_blobs(blobs, out, err);
  xmlFreeDoc(doc);
  return keep_marker(oom_if_refused(rc, refused, err), marker, &out->next_marker);
}

/* ----------------------------------------------------- container list ---- */

/* One <Container>: its <Name> (required, not empty) and Properties/Last-Modified. */
static xio_err read_container(const xmlNode *el, size_t index, xio_blob_container *c,
                              xio_error *err) {
  char what[48];
  xmlNode *name, *props, *lm;
  memset(c, 0, sizeof *c);
  snprintf(what, sizeof what, "Container %zu", index);
  xio_err rc = one_child(el, what, "Name", &name, err);
  if (rc == XIO_OK && find_child(el, "Properties", &props) == 1 &&
      find_child(props, "Last-Modified", &lm) == 1 &&
      text_copy(lm, c->last_modified, sizeof c->last_modified, 1, 1) != XIO_OK)
    rc = FAIL_AS(err, XIO_ENOMEM, "out of memory reading %s", what);
  if (rc == XIO_OK) rc = text_dup(name, &c->name, err);
  if (rc == XIO_OK && !c->name) rc = FAIL_AS(err, XIO_EPARSE, "%s has an empty <Name>", what);
  return rc;
}

/* Appends every <Container> of `list` to `out`; on failure `out` keeps only what it
 * held before. Errors: XIO_EPARSE, XIO_ENOMEM. */
static xio_err append_containers(const xmlNode *list, xio_blob_container_list *out,
                                 xio_error *err) {
  size_t count = 0, old_n = out->n, index = 0;
  for (const xmlNode *n = list->children; n; n = n->next)
    count += is_elem(n, "Container");
  if (count == 0) return XIO_OK;
  if (count > SIZE_MAX / sizeof *out->v - old_n)
    return FAIL_AS(err, XIO_ENOMEM, "too many containers in a listing");
  xio_blob_container *v = xio_realloc(out->v, (old_n + count) * sizeof *v);
  if (!v) return FAIL_AS(err, XIO_ENOMEM, "out of memory for %zu containers", count);
  out->v = v;
  for (const xmlNode *n = list->children; n; n = n->next) {
    if (!is_elem(n, "Container")) continue;
    xio_err rc = read_container(n, ++index, &out->v[out->n], err);
    if (rc != XIO_OK) {
      xio_free(out->v[out->n].name);
      while (out->n > old_n)
        xio_free(out->v[--out->n].name);
      return rc;
    }
    out->n++;
  }
  return XIO_OK;
}

static xio_err read_container_list(const char *body, size_t len, xio_blob_container_list *out,
                                   xio_error *err) {
  xmlDoc *doc;
  xmlNode *root, *list;
  char *marker = NULL;
  if (!out || (!body && len > 0))
    return FAIL_AS(err, XIO_EINVAL, "container list: no body or no output");
  unsigned long refused = xio_alloc_failures();
  xio_err rc = parse_doc(body, len, "EnumerationResults", &doc, &root, err);
  if (rc != XIO_OK) return rc;
  rc = one_child(root, "EnumerationResults", "Containers", &list, err);
  if (rc == XIO_OK) rc = next_marker_of(root, &marker, err);
  if (rc == XIO_OK) rc = append_containers(list, out, err);
  xmlFreeDoc(doc);
  return keep_marker(oom_if_refused(rc, refused, err), marker, &out->next_marker);
}

/* ------------------------------------------------------ entry points ---- */

xio_err xio__blob_xml_error(const char *body, size_t len, char *code, size_t code_size,
                            char *message, size_t message_size) {
  quiet q;
  quiet_begin(&q);
  xio_err rc = read_error(body, len, code, code_size, message, message_size);
  quiet_end(&q);
  return rc;
}

xio_err xio__blob_xml_page_list(const char *body, size_t len, xio_ranges *ranges,
                                xio_ranges *cleared, char **next_marker, xio_error *err) {
  quiet q;
  quiet_begin(&q);
  xio_err rc = read_page_list(body, len, ranges, cleared, next_marker, err);
  quiet_end(&q);
  return rc;
}

xio_err xio__blob_xml_blob_list(const char *body, size_t len, xio_blob_list *out, xio_error *err) {
  quiet q;
  quiet_begin(&q);
  xio_err rc = read_blob_list(body, len, out, err);
  quiet_end(&q);
  return rc;
}

xio_err xio__blob_xml_container_list(const char *body, size_t len, xio_blob_container_list *out,
                                     xio_error *err) {
  quiet q;
  quiet_begin(&q);
  xio_err rc = read_container_list(body, len, out, err);
  quiet_end(&q);
  return rc;
}

/* --------------------------------------------------- user delegation key ---- */

/* Wipes the text nodes of the tree under `n` (the key's Value is a secret). */
static void wipe_texts(xmlNode *n) {
  for (; n; n = n->next) {
    if (n->content) OPENSSL_cleanse(n->content, strlen((const char *)n->content));
    wipe_texts(n->children);
  }
}

static xio_err udk_fields(const xmlNode *root, xio_auth_udk *k, xio_error *err) {
  static const char *const names[] = {"SignedOid",    "SignedTid",     "SignedStart",
                                      "SignedExpiry", "SignedService", "SignedVersion",
                                      "Value"};
  char **fields[] = {&k->oid, &k->tid, &k->start, &k->expiry, &k->service, &k->version, &k->value};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    xmlNode *el;
    xio_err rc = one_child(root, "<UserDelegationKey>", names[i], &el, err);
    if (rc == XIO_OK) rc = text_dup(el, fields[i], err);
    if (rc == XIO_OK && !*fields[i])
      rc = FAIL_AS(err, XIO_EPARSE, "<UserDelegationKey> has an empty <%s>", names[i]);
    if (rc != XIO_OK) return rc;
  }
  return XIO_OK;
}

static xio_err read_udk(const char *body, size_t len, xio_auth_udk *out, xio_error *err) {
  xmlDoc *doc;
  xmlNode *root;
  memset(out, 0, sizeof *out);
  xio_err rc = parse_doc(body, len, "UserDelegationKey", &doc, &root, err);
  if (rc != XIO_OK) return rc;
  rc = udk_fields(root, out, err);
  wipe_texts(root);
  xmlFreeDoc(doc);
  if (rc != XIO_OK) xio_auth_udk_clear(out);
  return rc;
}

xio_err xio__blob_xml_udk(const char *body, size_t len, xio_auth_udk *out, xio_error *err) {
  quiet q;
  quiet_begin(&q);
  xio_err rc = read_udk(body, len, out, err);
  quiet_end(&q);
  return rc;
}
