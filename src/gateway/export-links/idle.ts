// A download whose client takes nothing for a while is cut. While the client reads, however
// slowly, the response drains now and then; a client that stopped reading (a stalled tab, a
// script that opened the link and forgot it) never drains it, and would hold its upstream
// connection for as long as the socket lives: the upstream's body timeout does not run while the
// gateway itself has paused the reading.
import type { ServerResponse } from 'node:http';

export interface IdleWatch {
  /** Whether the watch cut the response. */
  readonly cut: boolean;
  stop(): void;
}

export function cutWhenIdle(res: ServerResponse, idleMs: number): IdleWatch {
  let lastProgress = performance.now();
  const onDrain = () => {
    lastProgress = performance.now();
  };
  res.on('drain', onDrain);
  const watch = {
    cut: false,
    stop() {
      clearInterval(timer);
      res.off('drain', onDrain);
    },
  };
  const timer = setInterval(
    () => {
      const now = performance.now();
      // Not waiting on the client: whatever is slow, it is not the reader.
      if (!res.writableNeedDrain) lastProgress = now;
      else if (now - lastProgress >= idleMs) {
        watch.cut = true;
        watch.stop();
        res.destroy();
      }
    },
    Math.max(50, Math.min(1_000, Math.floor(idleMs / 4))),
  );
  timer.unref();
  return watch;
}
