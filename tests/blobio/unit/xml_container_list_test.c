/*
 * xml_container_list_test.c - reading List Containers bodies (the shape Azure sends,
 * byte-order mark included): names and last-modified dates, NextMarker, appending
 * pages, and refusal of malformed bodies, which leaves the list as it was.
 */
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "test.h"
#include "xml_int.h"

#define BOM "\xEF\xBB\xBF"
#define HEAD                                                                                       \
  BOM "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults "                             \
      "ServiceEndpoint=\"https://acct.blob.core.windows.net/\"><MaxResults>2</MaxResults>"
#define CONTAINER(name, modified)                                                                  \
  "<Container><Name>" name "</Name><Properties><Last-Modified>" modified                           \
  "</Last-Modified><Etag>\"0x8DC0000000000\"</Etag><LeaseStatus>unlocked</LeaseStatus>"            \
  "<LeaseState>available</LeaseState></Properties></Container>"

static xio_err parse(const char *body, xio_blob_container_list *l, xio_error *err) {
  xio_error_clear(err);
  return xio__blob_xml_container_list(body, strlen(body), l, err);
}

TEST(container_list_pages_append) {
  xio_blob_container_list l = {0};
  xio_error err;
  ASSERT_OK(parse(HEAD "<Containers>" CONTAINER("logs", "Mon, 01 Jan 2024 00:00:00 GMT") CONTAINER(
                      "mssql01",
                      "Tue, 02 Jan 2024 03:04:05 GMT") "</Containers><NextMarker>/acct/nightly</"
                                                       "NextMarker></EnumerationResults>",
                  &l, &err),
            &err);
  ASSERT_EQ(l.n, 2u);
  ASSERT_STR_EQ(l.v[0].name, "logs");
  ASSERT_STR_EQ(l.v[1].name, "mssql01");
  ASSERT_STR_EQ(l.v[1].last_modified, "Tue, 02 Jan 2024 03:04:05 GMT");
  ASSERT_STR_EQ(l.next_marker, "/acct/nightly");
  /* The last page: an empty NextMarker ends the walk; entries append. */
  ASSERT_OK(
      parse(HEAD "<Containers>" CONTAINER(
                "nightly",
                "Wed, 03 Jan 2024 00:00:00 GMT") "</Containers><NextMarker/></EnumerationResults>",
            &l, &err),
      &err);
  ASSERT_EQ(l.n, 3u);
  ASSERT_STR_EQ(l.v[2].name, "nightly");
  ASSERT(l.next_marker == NULL);
  xio_blob_container_list_clear(&l);
  ASSERT(l.v == NULL && l.n == 0);
}

TEST(container_list_refuses_malformed_bodies) {
  xio_blob_container_list l = {0};
  xio_error err;
  ASSERT_OK(parse(HEAD "<Containers>" CONTAINER("kept", "") "</Containers></EnumerationResults>",
                  &l, &err),
            &err);
  ASSERT_EQ(parse(HEAD "</EnumerationResults>", &l, &err), XIO_EPARSE);
  ASSERT_CONTAINS(err.message, "<Containers>");
  ASSERT_EQ(
      parse(HEAD "<Containers>" CONTAINER("", "") "</Containers></EnumerationResults>", &l, &err),
      XIO_EPARSE);
  ASSERT_CONTAINS(err.message, "empty <Name>");
  ASSERT_EQ(parse(HEAD "<Containers><Container><Properties/></Container></Containers>"
                       "</EnumerationResults>",
                  &l, &err),
            XIO_EPARSE);
  ASSERT_EQ(parse("<Error><Code>x</Code></Error>", &l, &err), XIO_EPARSE);
  ASSERT_EQ(l.n, 1u); /* what the first page gave, unchanged */
  ASSERT_STR_EQ(l.v[0].name, "kept");
  xio_blob_container_list_clear(&l);
}
