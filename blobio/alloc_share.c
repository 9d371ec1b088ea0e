/*
 * alloc_share.c - hands xio's allocator to libcurl, libxml2 and cJSON when a program
 * asks (see <xio/blob_alloc.h>). The choice of those libraries' allocators belongs to
 * the program: nothing in xio calls this on its own.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <libxml/parser.h>
#include <libxml/xmlmemory.h>

#include <xio/alloc.h>
#include <xio/blob_alloc.h>
#include <xio/error_int.h>

xio_err xio_blob_share_allocator(xio_error *err) {
  cJSON_Hooks hooks = {xio_malloc, xio_free};
  cJSON_InitHooks(&hooks);
  if (xmlMemSetup(xio_free, xio_malloc, xio_realloc, xio_strdup) != 0 ||
      xmlGcMemSetup(xio_free, xio_malloc, xio_malloc, xio_realloc, xio_strdup) != 0)
    return xio_error_set(err, XIO_ETRANSPORT, "libxml2 refused the allocator");
  xmlInitParser();
  if (curl_global_init_mem(CURL_GLOBAL_DEFAULT, xio_malloc, xio_free, xio_realloc, xio_strdup,
                           xio_calloc) != CURLE_OK)
    return xio_error_set(err, XIO_ETRANSPORT, "libcurl could not be initialized");
  return XIO_OK;
}
