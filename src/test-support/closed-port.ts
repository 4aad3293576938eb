/**
 * A loopback port nothing listens on: connections to it are refused (an endpoint that is down).
 * @example const endpoint = `https://127.0.0.1:${closedPort()}`;
 */
export function closedPort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}
