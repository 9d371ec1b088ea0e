// sdk_transfer.js - the official JavaScript SDK (@azure/storage-blob, pinned in
// samples/testers/emulator/azurite/package-lock.json) moving one file to or from a
// page blob, for the throttling benchmark (scripts/bench-throttling.sh) to compare
// with xio in the same run.
//
//   node sdk_transfer.js upload|download CONTAINER BLOB SIZE
//   (NODE_PATH: the node_modules beside that lock file)
//   node sdk_transfer.js randwrite CONTAINER BLOB SIZE COUNT DEPTH
//
// Upload: creates the container and a page blob of SIZE bytes and writes it in 4 MiB
// pages, 6 at a time (xio put's default depth); download: reads it back in 4 MiB
// ranges, 6 at a time; randwrite: creates the container and a page blob of SIZE
// bytes and writes COUNT pages of 8 KiB at random aligned offsets, DEPTH at a time
// (xio-bench's random writes). The SDK's own retry policy (exponential, 4 tries) handles
// throttling; a policy after it counts every try and its status. Prints one JSON
// line {"ok":true,"tries":N,"statuses":{...},"seconds":S} (ok false and the message
// when the SDK gave up), from AZURE_STORAGE_CONNECTION_STRING.
"use strict";

const { BlobServiceClient, newPipeline, StorageSharedKeyCredential } = require("@azure/storage-blob");

const CHUNK = 4 * 1024 * 1024;
const SMALL = 8192;
let DEPTH = 6;
const seen = { tries: 0, statuses: {} };

class CountPolicyFactory {
  create(next) {
    return {
      sendRequest: async (request) => {
        seen.tries++;
        try {
          const r = await next.sendRequest(request);
          seen.statuses[r.status] = (seen.statuses[r.status] || 0) + 1;
          return r;
        } catch (e) {
          const k = e.statusCode || "error";
          seen.statuses[k] = (seen.statuses[k] || 0) + 1;
          throw e;
        }
      },
    };
  }
}

function clientFor(cs) {
  const kv = Object.fromEntries(cs.split(";").filter(Boolean).map((p) => {
    const i = p.indexOf("=");
    return [p.slice(0, i), p.slice(i + 1)];
  }));
  const cred = new StorageSharedKeyCredential(kv.AccountName, kv.AccountKey);
  const pipeline = newPipeline(cred, { retryOptions: { maxTries: 4 } });
  pipeline.factories.push(new CountPolicyFactory());
  return new BlobServiceClient(kv.BlobEndpoint, pipeline);
}

async function pool(n, work) {
  let next = 0;
  const workers = Array.from({ length: DEPTH }, async () => {
    while (next < n) await work(next++);
  });
  await Promise.all(workers);
}

async function main() {
  const [op, container, blob, sizeText] = process.argv.slice(2);
  const size = Number(sizeText);
  const svc = clientFor(process.env.AZURE_STORAGE_CONNECTION_STRING);
  const c = svc.getContainerClient(container);
  const b = c.getPageBlobClient(blob);
  const chunk = Buffer.alloc(CHUNK, 0x5a);
  const t0 = process.hrtime.bigint();
  if (op === "randwrite") {
    const count = Number(process.argv[6]);
    DEPTH = Number(process.argv[7]);
    const page = Buffer.alloc(SMALL, 0x5a);
    let rng = 2463534242; // xorshift32
    const next = () => {
      rng = (rng ^ (rng << 13)) >>> 0;
      rng = (rng ^ (rng >>> 17)) >>> 0;
      rng = (rng ^ (rng << 5)) >>> 0;
      return rng;
    };
    await c.createIfNotExists();
    await b.create(size);
    await pool(count, () => b.uploadPages(page, (next() % (size / SMALL)) * SMALL, SMALL));
  } else if (op === "upload") {
    await c.createIfNotExists();
    await b.create(size);
    await pool(Math.ceil(size / CHUNK), (i) => b.uploadPages(chunk, i * CHUNK, CHUNK));
  } else {
    await pool(Math.ceil(size / CHUNK), async (i) => {
      const r = await b.download(i * CHUNK, CHUNK);
      for await (const _ of r.readableStreamBody) { /* drain */ }
    });
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(JSON.stringify({ ok: true, tries: seen.tries, statuses: seen.statuses, seconds }));
}

main().catch((e) => {
  console.log(JSON.stringify({ ok: false, message: String(e.message || e), tries: seen.tries,
                               statuses: seen.statuses }));
  process.exit(1);
});
