// fsync a file or a directory by path (a directory's fsync makes its entries — creates, renames,
// unlinks — durable).
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
