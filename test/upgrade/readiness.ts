// A balancer's readiness check, four times a second, each answer's status and time kept.
export interface Readiness {
  /** The statuses seen, each once. */
  statuses: number[];
  /** The slowest answer, in milliseconds (or the check's 5 s when one never came). */
  slowest: number;
}

export function watchReadiness(url: string, everyMs = 250): { stop(): Promise<Readiness> } {
  const statuses = new Set<number>();
  let slowest = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (response) => response.status,
        () => 0,
      );
      statuses.add(status);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { statuses: [...statuses].sort(), slowest };
    },
  };
}
