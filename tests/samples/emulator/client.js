// client.js - a client of another kind for the emulator tests: the official
// JavaScript SDK (@azure/storage-blob, pinned in
// samples/testers/emulator/azurite/package-lock.json) creates a container and a page
// blob, writes pages, reads them back and checks the bytes, all against
// AZURE_STORAGE_CONNECTION_STRING, as a user of `xio emulator` would after
// eval "$(xio emulator start --shell)".
//
//   node client.js PAGES   (NODE_PATH names samples/testers/emulator/azurite/node_modules)
//
// Every try the SDK makes (retries included) passes through a policy placed after
// the SDK's retry policy, which counts the HTTP statuses and the failed tries it
// sees. Requests are made one at a time, so a seeded fault proxy in front sees the
// same sequence on every run. Prints one JSON line:
//   {"ok":true,"tries":N,"statuses":{"201":N,...},"errors":N,"bytes":N}
// and exits 0, or prints {"ok":false,"message":...} and exits 1.
"use strict";

const { BlobServiceClient, StorageSharedKeyCredential, newPipeline } = require("@azure/storage-blob");

const PAGE = 16 * 1024;

const seen = { tries: 0, statuses: {}, errors: 0, failures: {}, app_retries: 0 };

// Named so that the SDK places it after its retry policy: it sees every try.
class InjectorPolicyFactory {
  create(nextPolicy) {
    return {
      sendRequest: async (request) => {
        seen.tries++;
        try {
          const response = await nextPolicy.sendRequest(request);
          seen.statuses[response.status] = (seen.statuses[response.status] || 0) + 1;
          return response;
        } catch (e) {
          if (e.statusCode) seen.statuses[e.statusCode] = (seen.statuses[e.statusCode] || 0) + 1;
          else {
            seen.errors++;
            const why = e.code || e.name || "error";
            seen.failures[why] = (seen.failures[why] || 0) + 1;
          }
          throw e;
        }
      },
    };
  }
}

function parseConnectionString(cs) {
  const out = {};
  for (const part of cs.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  for (const k of ["AccountName", "AccountKey", "BlobEndpoint"])
    if (!out[k]) throw new Error(`the connection string has no ${k}`);
  const host = new URL(out.BlobEndpoint).hostname;
  if (host !== "127.0.0.1") throw new Error(`the blob endpoint is not on 127.0.0.1: ${host}`);
  return out;
}

// Deterministic page contents: page i is filled from a small generator seeded by i.
function pageData(i) {
  const b = Buffer.alloc(PAGE);
  let x = (i + 1) * 2654435761;
  for (let k = 0; k < PAGE; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[k] = x >>> 24;
  }
  return b;
}

// Runs one operation; retries it when the SDK gave up on a failure that is no HTTP
// status (12.32.0 does not retry a response whose body was cut short unless it was
// a download: "Error reading response as text: aborted").
async function op(fn) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (e.statusCode || attempt === 10) throw e;
      seen.app_retries++;
    }
  }
}

async function readAll(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

async function main() {
  const pages = Number(process.argv[2] || 8);
  const cs = process.env.AZURE_STORAGE_CONNECTION_STRING;
  if (!cs) throw new Error("AZURE_STORAGE_CONNECTION_STRING is not set");
  const c = parseConnectionString(cs);
  const pipeline = newPipeline(new StorageSharedKeyCredential(c.AccountName, c.AccountKey), {
    retryOptions: { maxTries: 20, retryDelayInMs: 10, maxRetryDelayInMs: 100, tryTimeoutInMs: 1500 },
  });
  pipeline.factories.push(new InjectorPolicyFactory());
  const service = new BlobServiceClient(c.BlobEndpoint, pipeline);
  const container = service.getContainerClient(`js-${process.pid}-${Date.now()}`);
  const read = (off) =>
    op(async () => readAll((await blob.download(off, PAGE, { maxRetryRequests: 20 })).readableStreamBody));
  await op(() => container.createIfNotExists());
  const blob = container.getPageBlobClient("pages.bin");
  const size = 2 * pages * PAGE; // every other page written: the blob stays sparse
  await op(() => blob.create(size));
  for (let i = 0; i < pages; i++) await op(() => blob.uploadPages(pageData(i), 2 * i * PAGE, PAGE));
  const ranges = await op(() => blob.getPageRanges(0, size));
  if ((ranges.pageRange || []).length !== pages)
    throw new Error(`${pages} page ranges written, ${(ranges.pageRange || []).length} listed`);
  for (let i = 0; i < pages; i++) {
    if (!(await read(2 * i * PAGE)).equals(pageData(i))) throw new Error(`page ${i} reads back different bytes`);
  }
  const hole = await read(PAGE);
  if (hole.length !== PAGE || hole.some((v) => v !== 0)) throw new Error("an unwritten page is not zero");
  await op(() => container.deleteIfExists());
  console.log(JSON.stringify({ ok: true, ...seen, bytes: size }));
}

main().catch((e) => {
  console.log(JSON.stringify({ ok: false, message: String(e && e.message ? e.message : e), ...seen }));
  process.exit(1);
});
