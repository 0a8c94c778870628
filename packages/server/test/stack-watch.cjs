// Loaded with `node --require` into a server under test: says on stderr each time an
// error's stack is formatted. Under `--enable-source-maps` the first one parses the
// bundle's whole source map, which the process then keeps (about 10 MB of a worker's
// heap), so a server that starts and idles should format none.
const format = (error, frames) =>
  `${error.name}: ${error.message}\n${frames.map((frame) => `    at ${frame}`).join('\n')}`;
Error.prepareStackTrace = (error, frames) => {
  const stack = format(error, frames);
  process.stderr.write(`error stack formatted: ${stack.split('\n').slice(0, 3).join(' | ')}\n`);
  return stack;
};
