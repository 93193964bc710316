/**
 * DynamoDB Local's SQLite file, made fit for a long run (decision 332).
 *
 * The engine keeps every stream's records in one SQLite table (`us`) keyed by sequence
 * number alone, and looks up a stream's oldest record (`SELECT MIN(SequenceNumber) FROM us
 * WHERE StreamID = ?`) for every request to a table with a stream, and again for every
 * write. Without an index on the stream that is a scan of every stream record the engine
 * holds, on the one thread all its SQLite work goes through: each request costs more as
 * the run writes more, until bursts queue for seconds behind each other (a test run's
 * engine spent 140 s of that thread's time in five minutes, and requests waited up to
 * 20 s). One index on (StreamID, SequenceNumber) makes the lookup a seek. So the engine
 * always runs on a file this process can reach: the data directory's, or a scratch one
 * in memory-backed /dev/shm where the machine has it, as `-inMemory` was.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The file DynamoDB Local keeps all tables in with `-sharedDb`, in its `-dbPath`. */
export const sharedDbFile = (dbPath: string) => path.join(dbPath, 'shared-local-instance.db');

export const STREAM_RECORDS_INDEX = 'us_stream_sequence';

/**
 * Adds the index to the engine's file, once it has made its schema (it has when it
 * answers). SQLite takes a schema change from another connection while the engine runs;
 * its prepared statements pick the index up. False when the file has no such table: a
 * DynamoDB Local that keeps its streams otherwise, still correct, only slower.
 */
export function indexStreamRecords(dbFile: string): boolean {
  const db = new DatabaseSync(dbFile, { timeout: 10_000 });
  try {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('us') as { name: string }[];
    const names = new Set(columns.map((c) => c.name));
    if (!names.has('StreamID') || !names.has('SequenceNumber')) return false;
    db.exec(`CREATE INDEX IF NOT EXISTS ${STREAM_RECORDS_INDEX} ON us (StreamID, SequenceNumber)`);
    return true;
  } finally {
    db.close();
  }
}

/** Where scratch directories go: /dev/shm (memory, as the engine's `-inMemory` was) where there is one. */
export const scratchRoot = () => (existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());

/** The start of the name of a scratch directory made by the process `pid`. */
export const scratchPrefix = (pid: number) => `dynamodb-local-${pid}-`;
const SCRATCH_NAME = /^dynamodb-local-(\d+)-/;

/** The scratch directories (their names under scratchRoot()) the process `pid` made and has not removed. */
export const scratchDirsOf = (pid: number) => readdirSync(scratchRoot()).filter((name) => name.startsWith(scratchPrefix(pid)));

/**
 * A scratch directory for an engine with no data directory, under scratchRoot(). Its name
 * carries this process's id, so a start sweeps away those of processes that died without
 * stopping their engine (memory is not given back until they are removed).
 */
export function scratchDbPath(): string {
  const root = scratchRoot();
  for (const name of readdirSync(root)) {
    const pid = Number(SCRATCH_NAME.exec(name)?.[1]);
    if (!pid || alive(pid)) continue;
    try {
      rmSync(path.join(root, name), { recursive: true, force: true });
    } catch {
      // Another user's: theirs to remove.
    }
  }
  // mkdtemp makes it owner-only: the file holds the key table.
  return mkdtempSync(path.join(root, scratchPrefix(process.pid)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, and another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
