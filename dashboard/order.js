// Where a timeline row goes. Rows are kept oldest first, in log order: by the entry's index when
// both rows name one (two nodes report an entry at different wall times, a replayed history arrives
// after newer live rows), else by when the event was published. Pure.

/** Negative when row a comes before row b. */
export function compareRows(a, b) {
  const ia = a.ev.index;
  const ib = b.ev.index;
  if (ia !== undefined && ib !== undefined && ia !== ib) return ia - ib;
  return a.ev.at - b.ev.at;
}

/** The position in `rows` (oldest first) at which `row` goes: after every row not later than it. Scans from the newest end (most rows arrive in order). */
export function insertAt(rows, row) {
  let k = rows.length;
  while (k > 0 && compareRows(rows[k - 1], row) > 0) k--;
  return k;
}
