// WAL checkpoints of the embedded store, off the event loop: a worker thread with its own connection copies the
// write-ahead log into the database file every CHECKPOINT_EVERY_MS, and starts the WAL over when the group commit
// hands it the idle writing connection (GroupCommit.walProgress in db.ts; docs/decisions/checkpoint-handoff.md).
// Left to SQLite, a commit that crosses 1000 WAL pages runs the checkpoint itself, fsync included, on the event loop:
// every ~30 evaluations one request paid for it (commit measured at ~0.9 ms on average in the bench). Durability is
// unchanged: committed data is in the WAL, and a checkpoint flushes the database file before the WAL is reused.
import { once } from "node:events";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** How often the worker checkpoints: often enough that the WAL stays small. */
export const CHECKPOINT_EVERY_MS = 500;

// The thread's connection: its checkpoints flush the WAL and the database file, and its one write after a complete
// checkpoint (below) flushes the new WAL header, in every synchronous mode but OFF; NORMAL spares that write's commit a
// flush of its own (it changes nothing worth keeping). busy_timeout: the writing connection is idle during a restart (it waits for the answer), so only another process
// (a CLI command) can keep the locks; the requests waiting meanwhile must not wait long for it.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.module);
const db = new SQLite(workerData.file);
db.pragma("synchronous = NORMAL");
db.pragma("busy_timeout = 100");
// A read transaction held from one checkpoint to the next. When a checkpoint happens to copy every frame (the writer
// idle meanwhile), the writer's next commit would start the WAL over itself, with the new header's fsync on the event
// loop; a reader of the WAL stops it (the restart needs every reader off the WAL), so the WAL goes on until the
// hand-off. It is taken anew before each checkpoint (a reader's snapshot bounds what a checkpoint copies) and let go
// for the hand-off's RESTART.
const reader = new SQLite(workerData.file, { readonly: true });
const probe = reader.prepare("select count(*) from sqlite_master");
function read() {
  if (reader.inTransaction) reader.exec("commit");
  reader.exec("begin");
  probe.get();
}
// SQLite flushes the database file only when a checkpoint has copied every frame, so under steady writes that flush
// fell to the hand-off's RESTART, with every page copied since the last restart still to write out (17-21 ms of held
// queries at 526 evaluations/s, when the copy of the last frames takes a millisecond). The thread flushes the file
// itself after each checkpoint that copied frames: the hand-off's flush finds only the last ones.
const dbFile = require("node:fs").openSync(workerData.file, "r");
let flushedAt = -1;
const timer = setInterval(() => {
  try {
    read();
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    if (!r) return;
    if (r.checkpointed > 0 && r.checkpointed !== flushedAt) {
      require("node:fs").fdatasyncSync(dbFile);
      flushedAt = r.checkpointed;
    }
    parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
  } catch {}
}, workerData.everyMs);
function restart() {
  if (reader.inTransaction) reader.exec("commit");
  const [r] = db.pragma("wal_checkpoint(RESTART)");
  if (!r || r.busy !== 0 || r.checkpointed !== r.log) return { restarted: false, log: r ? r.log : -1 };
  // Every frame is in the database file and nobody reads the WAL: the next write starts it over, with a new header
  // and its fsync. This write (page 1, user_version unchanged) is that one, so the fsync is this thread's.
  db.exec("begin immediate");
  try {
    db.pragma("user_version = " + Number(db.pragma("user_version", { simple: true })));
    db.exec("commit");
  } catch (e) {
    if (db.inTransaction) db.exec("rollback");
    throw e;
  }
  return { restarted: true, log: r.log };
}
parentPort.on("message", (m) => {
  if (m === "restart") {
    try { parentPort.postMessage({ restart: restart() }); }
    catch (e) { parentPort.postMessage({ restart: { restarted: false, error: String(e) } }); }
    return;
  }
  clearInterval(timer);
  try { reader.close(); } catch {}
  try { db.close(); } catch {}
  try { require("node:fs").closeSync(dbFile); } catch {}
  parentPort.close();
});
`;

/** Where a checkpoint of the thread left the WAL: frames in it (`log`), and of those copied to the database file. */
export interface CheckpointProgress {
  log: number;
  checkpointed: number;
}

/** What a restart did: `restarted` when every frame was copied and the WAL started over (its `log` frames reused). */
export interface RestartOutcome {
  restarted: boolean;
  log?: number;
  error?: string;
}

export interface Checkpointer {
  /** Each checkpoint of the thread reports its progress here. */
  onProgress(listener: (p: CheckpointProgress) => void): void;
  /**
   * Completes a checkpoint in the thread and starts the WAL over. Only while this process's writing connection is idle
   * (no transaction, no statement): the thread takes the write lock, and would otherwise wait for it or hold it up.
   */
  restartWal(): Promise<RestartOutcome>;
  /** Stops the thread (resolves once it has). */
  stop(): Promise<void>;
}

/** Starts the checkpointing thread for `file`. */
export function startCheckpointer(file: string): Checkpointer {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER, { eval: true, workerData: { file, everyMs: CHECKPOINT_EVERY_MS, module } });
  worker.unref();
  const listeners: Array<(p: CheckpointProgress) => void> = [];
  const waiting: Array<(o: RestartOutcome) => void> = [];
  let exited = false;
  worker.on("message", (m: CheckpointProgress | { restart: RestartOutcome }) => {
    if ("restart" in m) waiting.shift()?.(m.restart);
    else for (const l of listeners) l(m);
  });
  // A failing checkpointer must not take the server down: SQLite's own checkpoint (db.ts) remains as the fallback, and
  // a restart asked of a thread that is gone answers at once.
  worker.on("error", () => {});
  worker.on("exit", () => {
    exited = true;
    for (const w of waiting.splice(0)) w({ restarted: false, error: "the checkpointing thread has stopped" });
  });
  return {
    onProgress: (listener) => listeners.push(listener),
    restartWal: () =>
      new Promise((resolve) => {
        if (exited) return resolve({ restarted: false, error: "the checkpointing thread has stopped" });
        // Referenced while the writing connection waits for it: the answer must come even if nothing else is pending.
        worker.ref();
        waiting.push((o) => {
          if (waiting.length === 0) worker.unref();
          resolve(o);
        });
        worker.postMessage("restart");
      }),
    stop: async () => {
      // Referenced again while stopping: a process with nothing else to do must wait for it, not exit mid-await.
      worker.ref();
      const exit = once(worker, "exit");
      worker.postMessage("stop");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exit, new Promise((r) => (timer = setTimeout(r, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
