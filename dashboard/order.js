// Where a timeline row goes. Rows are kept oldest first, in (term, index) order — the order the
// page's header claims — then by time: every row has a position in the log, `pos`: an entry's
// own (term, index); an unindexed row (an election, a demo step, a node going down) the position
// the log had reached when it happened. A total order, so a replayed history or a late report
// goes where it belongs whatever order rows arrive in (two nodes report an entry at different
// wall times). Pure.

/** Negative when row a comes before row b. */
export function compareRows(a, b) {
  return a.pos.term - b.pos.term || a.pos.index - b.pos.index || a.at - b.at;
}

/** The position in `rows` (oldest first) at which `row` goes: after every row not later than it. Scans from the newest end (most rows arrive in order). */
export function insertAt(rows, row) {
  let k = rows.length;
  while (k > 0 && compareRows(rows[k - 1], row) > 0) k--;
  return k;
}
