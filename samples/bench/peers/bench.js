// bench.js - the peer benchmark (make bench-peers): the same transfers through the
// xio command line and through the official JavaScript SDK (client.js), each client
// process on an Azurite of its own started fresh for it (in memory, on a free port of
// 127.0.0.1, over HTTP and over HTTPS with a throwaway test CA), several runs; prints
// medians and xio/JS ratios of wall time, CPU and peak RSS as markdown tables and
// writes them (results.md, results.csv, runs.json) to --out, anew after every
// measurement.
//
//   node bench.js --xio XIO --tool XIO_PEERS --azurite AZURITE_SH --node-modules DIR
//                 --out DIR [--doc FILE] [--csv FILE]
//
// --doc puts the tables into FILE between its bench-peers markers; --csv copies
// results.csv to FILE. Settings from the environment:
//   BENCH_PEERS_SIZE        size of the random file moved up and down (default 1G)
//   BENCH_PEERS_RUNS        runs of each 1 GiB transfer for each client (default 3)
//   BENCH_PEERS_SHORT_RUNS  runs of each case that takes about a second (fragmented
//                           transfers, random writes), whose noise is larger against
//                           what they measure (default BENCH_PEERS_RUNS + 2)
//   BENCH_PEERS_FRAG_PAGES  isolated 512-byte pages of the fragmented file (default
//                           20000: a 20 MiB file)
//   BENCH_PEERS_OPS         8 KiB random writes per measurement (default 2000)
//   BENCH_PEERS_PROTOCOLS   http,https (default both)
//   BENCH_PEERS_CASES       a regular expression picking cases by id (default all:
//                           upload download frag-upload frag-download randwrite-qd1
//                           randwrite-qd32)
//   BENCH_PEERS_JS_DOWNLOAD ranged (default: 8 MiB ranges, the size of xio's reads,
//                           8 in flight), ranged-4m (4 MiB ranges, downloadToBuffer's
//                           default blockSize, which costs Azurite twice the work per
//                           byte: see docs/benchmarks/peers.md) or file (the SDK's
//                           downloadToFile, one streamed request)
//   BENCH_PEERS_EMULATOR    fresh (default: an Azurite started anew for every client
//                           process) or shared (one per protocol, kept for the whole
//                           run: a quicker smoke, not a fair measurement)
// Every download's file is compared with the source; every upload's blob is read
// back and compared with the local file in the first run. Exits 1 when any run failed (the tables say which).
"use strict";

const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const machine = require("./machine.js");
const report = require("./report.js");

const ACCOUNT = "devstoreaccount1";
// Azurite's published development key: not a secret.
const DEV_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const CONTAINER = "peers";
const RANDOM_FILE = 256 * 2 ** 20;

function parseArgs(argv) {
  const a = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    a[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ["xio", "tool", "azurite", "node-modules", "out"])
    if (!a[k]) throw new Error(`--${k} is required`);
  return a;
}

function sizeArg(name, text) {
  const m = /^(\d+)([KMGT]?)$/i.exec(String(text).trim());
  if (!m || +m[1] === 0) throw new Error(`${name} '${text}' is not a size (a number, K/M/G/T)`);
  const v = +m[1] * 1024 ** " KMGT".indexOf((m[2] || " ").toUpperCase());
  if (v % 512) throw new Error(`${name} '${text}' is not a multiple of 512 bytes`);
  return v;
}

function countArg(name, text) {
  const v = Number(text);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} '${text}' is not a count of at least 1`);
  return v;
}

// The JS download schemes: client.js's command and its arguments after the blob's.
const JS_DOWNLOADS = {
  ranged: ["download", String(8 << 20)],
  "ranged-4m": ["download", String(4 << 20)],
  file: ["download-file"],
};

const JS_DOWNLOAD_LABEL = { ranged: "in 8 MiB ranges", "ranged-4m": "in 4 MiB ranges",
                            file: "with downloadToFile" };

function settings(env) {
  const runs = countArg("BENCH_PEERS_RUNS", env.BENCH_PEERS_RUNS || "3");
  const s = {
    size: sizeArg("BENCH_PEERS_SIZE", env.BENCH_PEERS_SIZE || "1G"),
    runs,
    shortRuns: countArg("BENCH_PEERS_SHORT_RUNS", env.BENCH_PEERS_SHORT_RUNS || String(runs + 2)),
    fragPages: countArg("BENCH_PEERS_FRAG_PAGES", env.BENCH_PEERS_FRAG_PAGES || "20000"),
    ops: countArg("BENCH_PEERS_OPS", env.BENCH_PEERS_OPS || "2000"),
    protocols: (env.BENCH_PEERS_PROTOCOLS || "http,https").split(",").filter(Boolean),
    cases: new RegExp(env.BENCH_PEERS_CASES || "."),
    jsDownload: env.BENCH_PEERS_JS_DOWNLOAD || "ranged",
    emulator: env.BENCH_PEERS_EMULATOR || "fresh",
  };
  if (!s.protocols.length || s.protocols.some((p) => p !== "http" && p !== "https"))
    throw new Error("BENCH_PEERS_PROTOCOLS takes http, https or both");
  if (!(s.jsDownload in JS_DOWNLOADS))
    throw new Error("BENCH_PEERS_JS_DOWNLOAD is ranged, ranged-4m or file");
  if (!["fresh", "shared"].includes(s.emulator))
    throw new Error("BENCH_PEERS_EMULATOR is fresh or shared");
  return s;
}

function human(bytes) {
  for (const [u, n] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 1024]])
    if (bytes >= n && bytes % n === 0) return `${bytes / n} ${u}`;
  return `${bytes} B`;
}

// The cases: what each client runs, what is there before, how the result is checked.
function cases(s) {
  const all = [
    { id: "upload", kind: "transfer", label: `upload ${human(s.size)}`, src: "random", op: "up",
      long: true },
    { id: "download", kind: "transfer", label: `download ${human(s.size)}`, src: "random", op: "down",
      long: true },
    { id: "frag-upload", kind: "transfer", label: `fragmented upload (${s.fragPages} pages)`,
      src: "frag", op: "up" },
    { id: "frag-download", kind: "transfer", label: `fragmented download (${s.fragPages} pages)`,
      src: "frag", op: "down" },
    { id: "randwrite-qd1", kind: "random", label: "8 KiB random writes, QD 1", depth: 1 },
    { id: "randwrite-qd32", kind: "random", label: "8 KiB random writes, QD 32", depth: 32 },
  ];
  return all.filter((c) => s.cases.test(c.id));
}

class Bench {
  constructor(args, s) {
    this.a = args;
    this.s = s;
    this.out = path.resolve(args.out);
    this.work = path.join(this.out, "work");
    this.state = path.join(this.out, "azurite");
    this.log = path.join(this.out, "bench.log");
    this.client = path.join(__dirname, "client.js");
    this.records = [];
    fs.mkdirSync(this.work, { recursive: true });
    fs.writeFileSync(this.log, "");
  }

  note(text) {
    fs.appendFileSync(this.log, text.endsWith("\n") ? text : text + "\n");
  }

  // Runs a command to its end; returns {status, stdout}; logs everything.
  exec(cmd, args, env) {
    this.note(`$ ${[cmd, ...args].join(" ")}`);
    const r = spawnSync(cmd, args, { env: env || process.env, encoding: "utf8", maxBuffer: 1 << 26 });
    this.note((r.stdout || "") + (r.stderr || "") + (r.error ? String(r.error) : ""));
    return { status: r.error ? -1 : r.status, stdout: r.stdout || "", stderr: r.stderr || "" };
  }

  must(cmd, args, env, what) {
    const r = this.exec(cmd, args, env);
    if (r.status !== 0) throw new Error(`${what} failed (see ${this.log}): ${r.stderr.trim()}`);
    return r;
  }

  makeInputs() {
    this.src = { random: path.join(this.work, "random.bin"), frag: path.join(this.work, "frag.bin") };
    this.must(this.a.tool, ["mkfile", "random", this.src.random, String(this.s.size)], null, "mkfile");
    this.must(this.a.tool, ["mkfile", "frag", this.src.frag, String(this.s.fragPages)], null, "mkfile");
  }

  // The emulator a client process runs on: a fresh one (BENCH_PEERS_EMULATOR=fresh),
  // or the one already running for this protocol (shared). Returns the environment
  // its clients run with.
  emulator(protocol) {
    if (this.s.emulator === "shared" && this.running && this.running.protocol === protocol)
      return this.running.az;
    this.stopAzurite();
    this.running = { protocol, az: this.startAzurite(protocol) };
    return this.running.az;
  }

  // Stops the running emulator, if any.
  stopAzurite() {
    if (!this.running) return;
    this.running = null;
    this.exec(this.a.azurite, ["stop", this.state]);
  }

  // A fresh emulator; returns the environment its clients run with.
  startAzurite(protocol) {
    this.must(this.a.azurite, [protocol === "https" ? "start-tls" : "start", this.state], null,
              "starting Azurite");
    const ep = fs.readFileSync(path.join(this.state, "endpoint"), "utf8").trim();
    const env = { ...process.env, NODE_PATH: this.a["node-modules"],
      AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=${protocol};AccountName=${ACCOUNT};` +
        `AccountKey=${DEV_KEY};BlobEndpoint=${ep}/${ACCOUNT};` };
    for (const k of ["XIO_TRACE", "XIO_CREDENTIALS", "XIO_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
                     "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN"])
      delete env[k];
    if (protocol === "https") {
      env.XIO_CA_BUNDLE = path.join(this.state, "ca.pem");
      env.NODE_EXTRA_CA_CERTS = env.XIO_CA_BUNDLE;
    }
    return { env, base: `${ep}/${ACCOUNT}/${CONTAINER}` };
  }

  command(c, client, az, blob, dst) {
    const url = `${az.base}/${blob}`, node = process.execPath;
    if (c.kind === "random") {
      return client === "xio"
        ? [this.a.tool, "randwrite", url, "--size", String(RANDOM_FILE), "--io", "8K", "--depth",
           String(c.depth), "--ops", String(this.s.ops)]
        : [node, this.client, "randwrite", CONTAINER, blob, String(RANDOM_FILE), "8192",
           String(c.depth), String(this.s.ops)];
    }
    const src = this.src[c.src];
    if (c.op === "up")
      return client === "xio" ? [this.a.xio, "put", src, url]
                              : [node, this.client, "upload", src, CONTAINER, blob];
    const [how, ...extra] = JS_DOWNLOADS[this.s.jsDownload];
    return client === "xio" ? [this.a.xio, "get", url, dst]
                            : [node, this.client, how, CONTAINER, blob, dst, ...extra];
  }

  // Is the transfer's result right? Returns an error message or "". An upload is
  // read back on the first run only (1 GiB takes seconds); a download always.
  check(c, az, blob, dst, run) {
    if (c.kind !== "transfer") return "";
    const src = this.src[c.src];
    if (c.op === "up") {
      if (run > 1) return "";
      const r = this.exec(this.a.tool, ["verify", src, `${az.base}/${blob}`], az.env);
      return r.status === 0 ? "" : `the uploaded blob is wrong: ${r.stderr.trim()}`;
    }
    const r = this.exec("cmp", [src, dst]);
    return r.status === 0 ? "" : `the downloaded file differs from the source: ${r.stdout.trim()}`;
  }

  measureOne(c, protocol, client, run) {
    const az = this.emulator(protocol);
    const blob = `${c.id}-${client}.bin`, dst = path.join(this.work, `${c.id}-${client}.out`);
    const mfile = path.join(this.work, "measure.json");
    fs.rmSync(dst, { force: true });
    fs.rmSync(mfile, { force: true });
    const rec = { case: c.id, label: c.label, kind: c.kind, protocol, client, run, ok: false };
    try {
      if (c.op === "down")
        this.must(this.a.tool, ["seed", this.src[c.src], `${az.base}/${blob}`, "--depth",
                                c.src === "frag" ? "32" : "8"], az.env, "seeding the blob");
      const cmd = this.command(c, client, az, blob, dst);
      const r = this.exec(this.a.tool, ["run", "--out", mfile, "--", ...cmd], az.env);
      Object.assign(rec, JSON.parse(fs.readFileSync(mfile, "utf8")));
      if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr.trim().split("\n").pop()}`);
      if (c.kind === "random") {
        const w = JSON.parse(r.stdout.trim().split("\n").pop());
        Object.assign(rec, { iops: w.iops, p50_us: w.p50_us, p99_us: w.p99_us, ops: w.ops,
                             phase_cpu_s: w.cpu_s });
      }
      const bad = this.check(c, az, blob, dst, run);
      if (bad) throw new Error(bad);
      rec.ok = true;
    } catch (e) {
      rec.error = e.message;
    } finally {
      fs.rmSync(dst, { force: true });
      if (this.s.emulator === "fresh") this.stopAzurite();
    }
    this.records.push(rec);
    return rec;
  }

  // How many runs case `c` gets.
  runsOf(c) {
    return c.long ? this.s.runs : this.s.shortRuns;
  }

  progress(c, rec, run) {
    const what = `run ${run}/${this.runsOf(c)}  ${rec.case.padEnd(14)} ${rec.protocol.padEnd(5)} ${rec.client.padEnd(3)}`;
    if (!rec.ok) return console.log(`${what}  FAILED: ${rec.error}`);
    let line = `${what}  wall ${rec.wall_s.toFixed(2)} s  CPU ${rec.cpu_s.toFixed(2)} s  ` +
      `RSS ${(rec.maxrss_kib / 1024).toFixed(0)} MiB`;
    if (rec.kind === "random") line += `  ${rec.iops.toFixed(0)} IOPS  p50 ${rec.p50_us.toFixed(0)} us`;
    console.log(line);
  }

  runAll(list, save) {
    const most = Math.max(...list.map((c) => this.runsOf(c)));
    const jobs = [];
    for (let run = 1; run <= most; run++)
      for (const c of list.filter((x) => run <= this.runsOf(x)))
        for (const protocol of this.s.protocols) jobs.push({ run, c, protocol });
    // On a shared emulator, one protocol's jobs after the other's (one start each).
    if (this.s.emulator === "shared")
      jobs.sort((x, y) => this.s.protocols.indexOf(x.protocol) - this.s.protocols.indexOf(y.protocol));
    for (const { run, c, protocol } of jobs) {
      // Alternate which client goes first, so neither always runs on a cooler machine.
      const order = run % 2 ? ["xio", "js"] : ["js", "xio"];
      for (const client of order) {
        this.progress(c, this.measureOne(c, protocol, client, run), run);
        save();
      }
    }
  }
}

// Writes the tables of the runs so far to --out (after every measurement, so a run
// stopped early still leaves them); returns the markdown.
function save(b, label, s, took) {
  const rows = report.summarize(b.records);
  const plural = (n) => `${n} run${n === 1 ? "" : "s"}`;
  const text = report.markdown(label, rows, s.runs === s.shortRuns ? plural(s.runs) :
    `${plural(s.runs)} (${s.shortRuns} for the cases that take about a second: fragmented ` +
    `transfers, random writes)`,
    `file ${human(s.size)}, fragmented file ${s.fragPages} pages, ${s.ops} random writes per ` +
    `measurement, JS download ${JS_DOWNLOAD_LABEL[s.jsDownload]}` + (took ? `; the whole benchmark took ${took}` : ""),
    s.emulator === "shared");
  const csv = report.csv(label, rows);
  fs.writeFileSync(path.join(b.out, "results.md"), text);
  fs.writeFileSync(path.join(b.out, "results.csv"), csv);
  fs.writeFileSync(path.join(b.out, "runs.json"),
                   JSON.stringify({ label, settings: { ...s, cases: String(s.cases) }, records: b.records },
                                  null, 1));
  return { text, csv };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const s = settings(process.env);
  const list = cases(s);
  if (!list.length) throw new Error("BENCH_PEERS_CASES picks no case");
  const label = machine.describe(args.xio, args["node-modules"]);
  const b = new Bench(args, s);
  const t0 = Date.now();
  b.makeInputs();
  try {
    b.runAll(list, () => save(b, label, s));
  } finally {
    b.stopAzurite();
  }
  fs.rmSync(b.work, { recursive: true, force: true });
  const { text, csv } = save(b, label, s, `${((Date.now() - t0) / 60000).toFixed(1)} min`);
  if (args.doc) report.updateDoc(args.doc, text);
  if (args.csv) fs.writeFileSync(args.csv, csv);
  console.log("\n" + text);
  console.log(`bench-peers: ${b.records.length} runs in ${((Date.now() - t0) / 1000).toFixed(0)} s; ` +
              `results in ${b.out}/ (results.md, results.csv, runs.json, bench.log)`);
  const failed = b.records.filter((r) => !r.ok).length;
  if (failed) {
    console.error(`bench-peers: ${failed} run(s) failed (see ${b.log})`);
    process.exit(1);
  }
}

try {
  main();
} catch (e) {
  console.error(`bench-peers: ${e.message}`);
  process.exit(2);
}
