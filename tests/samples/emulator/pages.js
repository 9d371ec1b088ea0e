// pages.js - the official JavaScript SDK (@azure/storage-blob) reads a fragmented
// page blob's ranges through `xio emulator`'s front, as it would from Azure: paged
// (maxPageSize, continuation markers holding '!' and '=') and all at once.
//
//   node pages.js RANGES PAGE_SIZE
//   (NODE_PATH names samples/testers/emulator/azurite/node_modules)
//
// Writes RANGES separate 512-byte pages (every other page) to a new page blob, then
// lists its ranges by pages of PAGE_SIZE and whole. Prints one JSON line:
//   {"ok":true,"pages":N,"markers":[...],"paged":N,"whole":N,"in_order":true}
// from AZURE_STORAGE_CONNECTION_STRING; {"ok":false,"message":...} and exit 1.
"use strict";

const { BlobServiceClient } = require("@azure/storage-blob");

async function main() {
  const ranges = Number(process.argv[2]);
  const pageSize = Number(process.argv[3]);
  const svc = BlobServiceClient.fromConnectionString(process.env.AZURE_STORAGE_CONNECTION_STRING);
  const c = svc.getContainerClient("pages" + Date.now());
  await c.create();
  const b = c.getPageBlobClient("frag.mdf");
  await b.create(ranges * 1024);
  const page = Buffer.alloc(512, 1);
  for (let i = 0; i < ranges; i++) await b.uploadPages(page, i * 1024, 512);
  const markers = [];
  let paged = 0, pages = 0, inOrder = true, last = -1;
  for await (const resp of b.listPageRanges().byPage({ maxPageSize: pageSize })) {
    pages++;
    if (resp.continuationToken) markers.push(resp.continuationToken);
    for (const r of resp.pageRange || []) {
      if (r.start !== paged * 1024 || r.start <= last) inOrder = false;
      last = r.start;
      paged++;
    }
  }
  let whole = 0;
  for await (const r of b.listPageRanges()) {
    if (r.start !== whole * 1024) inOrder = false;
    whole++;
  }
  console.log(JSON.stringify({ ok: true, pages, markers, paged, whole, in_order: inOrder }));
}

main().catch((e) => {
  console.log(JSON.stringify({ ok: false, message: String(e.message || e) }));
  process.exit(1);
});
