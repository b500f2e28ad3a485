/** Counts turns of the event loop: a ticker that runs once a turn (`setImmediate`), until `stop`. */
export function turnCounter(): { readonly turn: number; stop(): void } {
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turn() {
      return turn;
    },
    stop() {
      ticking = false;
    },
  };
}
