import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { SettlementRecord } from './settlement-record.js';

/**
 * Settled records the store could not take, on local disk: appended as JSON lines and fsync'd
 * before the answers that wait for them go out, so an outage of the store loses nothing, even if
 * the instance is killed during it. Drained by renaming the file first: records spilled while a
 * drain runs go to a fresh file, and a drain that fails part-way is simply run again (the store
 * write is idempotent).
 */
export class SettlementSpill {
  private readonly draining: string;

  constructor(readonly path: string) {
    this.draining = `${path}.draining`;
  }

  append(records: SettlementRecord[]): void {
    if (records.length === 0) return;
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, 'a');
    try {
      writeSync(fd, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Whether anything waits on disk (a spill, or a drain that did not finish). */
  get hasRecords(): boolean {
    return existsSync(this.path) || existsSync(this.draining);
  }

  /** The records to drain now (from an unfinished drain first); null when there are none. */
  take(): SettlementRecord[] | null {
    if (!existsSync(this.draining)) {
      if (!existsSync(this.path)) return null;
      renameSync(this.path, this.draining);
    }
    return readFileSync(this.draining, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as SettlementRecord];
        } catch {
          return []; // a line cut by a crash mid-append: its answer never went out
        }
      });
  }

  /** The records from take() are in the store. */
  drained(): void {
    rmSync(this.draining, { force: true });
  }
}
