/** Polls `read` every 50 ms until `done` holds or `ms` pass; answers the last value read (for HTTP-level tests of background work). */
export const eventually = async <A>(read: () => Promise<A>, done: (a: A) => boolean, ms = 5000): Promise<A> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
