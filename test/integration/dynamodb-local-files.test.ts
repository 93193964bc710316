/**
 * DynamoDB Local's file, made fit for a long run (decision 332): the engine's lookup of a
 * stream's oldest record seeks an index instead of scanning every stream record, and an
 * engine with no data directory keeps its file in a scratch directory that its stop removes
 * and that a later start sweeps away once its process is gone.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { clientFor, ensureTable, type RunningDynamo, startDynamoLocal } from '../../local/dynamodb-local.js';
import { STREAM_RECORDS_INDEX, scratchDirsOf, scratchPrefix, scratchRoot } from '../../local/dynamodb-local-files.js';
import { freePort } from '../helpers/local-process.js';

/** The plan SQLite makes for the engine's query (SQLiteDBAccessJob.getStreamDescription's subquery). */
const OLDEST_RECORD = 'SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?';

let dynamo: RunningDynamo | undefined;
afterEach(async () => {
  await dynamo?.stop();
  dynamo = undefined;
});

it('indexes the stream records, so finding a stream’s oldest record is a seek, with records written', async () => {
  dynamo = await startDynamoLocal(await freePort(), null);
  await ensureTable(dynamo.endpoint, 'streamed');
  const client = clientFor(dynamo.endpoint);
  for (let i = 0; i < 20; i++)
    await client.send(new PutItemCommand({ TableName: 'streamed', Item: { pk: { S: `p${i}` }, sk: { S: 's' } } }));
  client.destroy();
  const db = new DatabaseSync(dynamo.dbFile, { readOnly: true });
  try {
    expect((db.prepare('SELECT COUNT(*) AS n FROM us').get() as { n: number }).n).toBeGreaterThanOrEqual(20);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${OLDEST_RECORD}`).all('x') as { detail: string }[]).map((r) => r.detail);
    expect(plan).toEqual([expect.stringContaining(`USING COVERING INDEX ${STREAM_RECORDS_INDEX}`)]);
  } finally {
    db.close();
  }
});

it('removes its scratch directory when stopped, and sweeps one left by a process that is gone', async () => {
  // No process has this id (above the kernel's pid_max).
  const orphan = path.join(scratchRoot(), `${scratchPrefix(4_194_305)}test`);
  mkdirSync(orphan, { recursive: true });
  // This process's other engines (the run's own, when jest runs this file in its main process) keep theirs.
  const others = scratchDirsOf(process.pid);
  dynamo = await startDynamoLocal(await freePort(), null);
  const scratch = path.dirname(dynamo.dbFile);
  expect(existsSync(dynamo.dbFile)).toBe(true);
  expect(existsSync(orphan)).toBe(false);
  await dynamo.stop();
  dynamo = undefined;
  expect(existsSync(scratch)).toBe(false);
  expect(scratchDirsOf(process.pid)).toEqual(others);
});
