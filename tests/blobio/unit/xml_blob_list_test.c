/*
 * xml_blob_list_test.c - reading List Blobs bodies: entries and their properties,
 * NextMarker, appending pages, and refusal of malformed bodies (which must leave
 * the list as it was).
 */
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "test.h"
#include "xml_int.h"

#define DECL "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
#define HEAD                                                                                       \
  DECL "<EnumerationResults ServiceEndpoint=\"http://127.0.0.1:10000/devstoreaccount1\" "          \
       "ContainerName=\"c\"><Prefix/><MaxResults>2</MaxResults>"
#define BLOB(name, size, type, lease, modified)                                                    \
  "<Blob><Name>" name "</Name><Properties><Creation-Time>Mon, 01 Jan 2024 00:00:00 GMT"            \
  "</Creation-Time><Last-Modified>" modified "</Last-Modified><Etag>0x8DC0000000000</Etag>"        \
  "<Content-Length>" size "</Content-Length><Content-Type>application/octet-stream"                \
  "</Content-Type><BlobType>" type "</BlobType><LeaseStatus>unlocked</LeaseStatus>"                \
  "<LeaseState>" lease "</LeaseState><x-ms-blob-sequence-number>0"                                 \
  "</x-ms-blob-sequence-number></Properties></Blob>"

static const char two_blobs[] = HEAD
    "<Blobs>" BLOB("a.mdf", "1048576", "PageBlob", "available", "Mon, 01 Jan 2024 00:00:00 GMT")
        BLOB("dir/b.ldf", "8796093022208", "PageBlob", "leased",
             "Tue, 02 Jan 2024 03:04:05 GMT") "</Blobs><NextMarker>abc</NextMarker>"
                                              "</EnumerationResults>";

static xio_err parse(const char *body, xio_blob_list *l, xio_error *err) {
  xio_error_clear(err);
  return xio__blob_xml_blob_list(body, strlen(body), l, err);
}

TEST(blob_list_two_blobs) {
  xio_blob_list l = {0};
  xio_error err;
  ASSERT_OK(parse(two_blobs, &l, &err), &err);
  ASSERT_EQ(l.n, 2);
  ASSERT_STR_EQ(l.v[0].name, "a.mdf");
  ASSERT_U64_EQ(l.v[0].size, 1048576);
  ASSERT_STR_EQ(l.v[0].blob_type, "PageBlob");
  ASSERT_STR_EQ(l.v[0].lease_state, "available");
  ASSERT_STR_EQ(l.v[0].last_modified, "Mon, 01 Jan 2024 00:00:00 GMT");
  ASSERT_STR_EQ(l.v[1].name, "dir/b.ldf");
  ASSERT_U64_EQ(l.v[1].size, XIO_BLOB_MAX_SIZE);
  ASSERT_STR_EQ(l.v[1].lease_state, "leased");
  ASSERT_STR_EQ(l.v[1].last_modified, "Tue, 02 Jan 2024 03:04:05 GMT");
  ASSERT_STR_EQ(l.next_marker, "abc");
  xio_blob_list_clear(&l);
}

TEST(blob_list_next_marker_empty_or_absent) {
  xio_blob_list l = {0};
  xio_error err;
  ASSERT_OK(parse(HEAD "<Blobs>" BLOB("x", "0", "PageBlob", "available",
                                      "t") "</Blobs><NextMarker/></EnumerationResults>",
                  &l, &err),
            &err);
  ASSERT_EQ(l.n, 1);
  ASSERT_U64_EQ(l.v[0].size, 0);
  ASSERT(l.next_marker == NULL);
  ASSERT_OK(parse(HEAD "<Blobs/></EnumerationResults>", &l, &err), &err);
  ASSERT(l.next_marker == NULL);
  ASSERT_EQ(l.n, 1);
  xio_blob_list_clear(&l);
}

TEST(blob_list_empty_blobs) {
  xio_blob_list l = {0};
  xio_error err;
  ASSERT_OK(parse(HEAD "<Blobs/><NextMarker/></EnumerationResults>", &l, &err), &err);
  ASSERT_EQ(l.n, 0);
  ASSERT(l.v == NULL);
  ASSERT(l.next_marker == NULL);
  ASSERT_OK(parse(HEAD "<Blobs>\n</Blobs><NextMarker/></EnumerationResults>", &l, &err), &err);
  ASSERT_EQ(l.n, 0);
  xio_blob_list_clear(&l);
}

/* Pages append; each page's marker replaces the previous one. */
TEST(blob_list_appends_pages) {
  xio_blob_list l = {0};
  xio_error err;
  ASSERT_OK(parse(two_blobs, &l, &err), &err);
  ASSERT_OK(parse(HEAD
                  "<Blobs>" BLOB("c.ndf", "512", "PageBlob", "broken",
                                 "t3") "</Blobs><NextMarker>def</NextMarker></EnumerationResults>",
                  &l, &err),
            &err);
  ASSERT_EQ(l.n, 3);
  ASSERT_STR_EQ(l.v[0].name, "a.mdf");
  ASSERT_STR_EQ(l.v[1].name, "dir/b.ldf");
  ASSERT_STR_EQ(l.v[2].name, "c.ndf");
  ASSERT_U64_EQ(l.v[2].size, 512);
  ASSERT_STR_EQ(l.v[2].lease_state, "broken");
  ASSERT_STR_EQ(l.next_marker, "def");
  ASSERT_OK(parse(HEAD "<Blobs/><NextMarker/></EnumerationResults>", &l, &err), &err);
  ASSERT_EQ(l.n, 3);
  ASSERT(l.next_marker == NULL); /* last page: the old marker is gone */
  xio_blob_list_clear(&l);
}

/* Names carry XML escapes; optional properties may be missing; over-long ones are
 * cut to their fields; unknown elements and BlobPrefix entries are skipped. */
TEST(blob_list_escapes_and_optional_fields) {
  xio_blob_list l = {0};
  xio_error err;
  ASSERT_OK(parse("\xEF\xBB\xBF<EnumerationResults><Blobs>"
                  "<BlobPrefix><Name>dir/</Name></BlobPrefix>"
                  "<Blob><Name>a&amp;b &lt;1&gt;.mdf</Name><Snapshot/>"
                  "<Properties><Content-Length>4096</Content-Length>"
                  "<BlobType>PageBlobWithAVeryLongTypeName</BlobType></Properties>"
                  "<Metadata><k>v</k></Metadata></Blob></Blobs></EnumerationResults>",
                  &l, &err),
            &err);
  ASSERT_EQ(l.n, 1);
  ASSERT_STR_EQ(l.v[0].name, "a&b <1>.mdf");
  ASSERT_U64_EQ(l.v[0].size, 4096);
  ASSERT_STR_EQ(l.v[0].blob_type, "PageBlobWithAVe"); /* 15 bytes + NUL */
  ASSERT_STR_EQ(l.v[0].lease_state, "");
  ASSERT_STR_EQ(l.v[0].last_modified, "");
  xio_blob_list_clear(&l);
}

/* Asserts that `body` is refused with a message containing `what`, and that a list
 * holding one entry and a marker keeps both. */
static void check_refused(int line, const char *body, const char *what) {
  xio_blob_list l = {0};
  xio_error err;
  ASSERT_OK(parse(two_blobs, &l, &err), &err);
  xio_err rc = parse(body, &l, &err);
  if (rc != XIO_EPARSE) FAIL("line %d: got %s, wanted XIO_EPARSE", line, xio_err_name(rc));
  if (!strstr(err.message, what))
    FAIL("line %d: message \"%s\" does not name \"%s\"", line, err.message, what);
  ASSERT_EQ(l.n, 2);
  ASSERT_STR_EQ(l.v[1].name, "dir/b.ldf");
  ASSERT_STR_EQ(l.next_marker, "abc");
  xio_blob_list_clear(&l);
}

#define REFUSED(body, what) check_refused(__LINE__, body, what)
#define GOOD                BLOB("ok", "512", "PageBlob", "available", "t")

TEST(blob_list_malformed) {
  REFUSED("", "empty body");
  REFUSED("<html>502 Bad Gateway</html>", "root element is <html>");
  REFUSED("EnumerationResults", "not well-formed");
  REFUSED(HEAD "<NextMarker/></EnumerationResults>", "EnumerationResults has no <Blobs>");
  REFUSED(HEAD "<Blobs/><Blobs/></EnumerationResults>", "more than one <Blobs>");
  /* A bad second blob: the good first one must not stay in the list. */
  REFUSED(HEAD "<Blobs>" GOOD "<Blob><Properties><Content-Length>1</Content-Length>"
               "</Properties></Blob></Blobs></EnumerationResults>",
          "Blob 2 has no <Name>");
  REFUSED(HEAD "<Blobs>" GOOD "<Blob><Name></Name><Properties><Content-Length>1</Content-Length>"
               "</Properties></Blob></Blobs></EnumerationResults>",
          "Blob 2 has an empty <Name>");
  REFUSED(HEAD "<Blobs>" GOOD "<Blob><Name>x</Name></Blob></Blobs></EnumerationResults>",
          "Blob 2 has no <Properties>");
  REFUSED(HEAD "<Blobs><Blob><Name>x</Name><Properties/></Blob></Blobs></EnumerationResults>",
          "Blob 1 has no <Content-Length>");
  REFUSED(HEAD
          "<Blobs>" BLOB("x", "-1", "PageBlob", "available", "t") "</Blobs></EnumerationResults>",
          "Blob 1: <Content-Length> \"-1\"");
  REFUSED(HEAD
          "<Blobs>" BLOB("x", "1MB", "PageBlob", "available", "t") "</Blobs></EnumerationResults>",
          "<Content-Length>");
  REFUSED(HEAD "<Blobs>junk" GOOD "</Blobs></EnumerationResults>", "Blobs holds stray text");
  REFUSED("<!DOCTYPE EnumerationResults [<!ENTITY n \"x\">]><EnumerationResults><Blobs/>"
          "</EnumerationResults>",
          "DTD");
}

/* Every proper prefix of a valid body is refused, and the list stays as it was. */
TEST(blob_list_truncated) {
  size_t n = strlen(two_blobs);
  xio_blob_list l = {0};
  xio_error err;
  for (size_t cut = 0; cut < n; cut++) {
    xio_err rc = xio__blob_xml_blob_list(two_blobs, cut, &l, &err);
    if (rc != XIO_EPARSE) FAIL("prefix of %zu bytes: %s", cut, xio_err_name(rc));
    ASSERT_EQ(l.n, 0);
    ASSERT(l.next_marker == NULL);
  }
  xio_blob_list_clear(&l);
}

TEST(blob_list_invalid_arguments) {
  xio_error err;
  ASSERT_ERR(xio__blob_xml_blob_list(two_blobs, strlen(two_blobs), NULL, &err), XIO_EINVAL, &err);
  xio_blob_list l = {0};
  ASSERT_ERR(xio__blob_xml_blob_list(NULL, 10, &l, &err), XIO_EINVAL, &err);
  ASSERT_EQ(l.n, 0);
}
