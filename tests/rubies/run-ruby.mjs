// run-ruby.mjs: run a Ruby script under one of the WebAssembly builds of
// CRuby (@ruby/3.2-wasm-wasi ... @ruby/4.0-wasm-wasi, pinned in this folder's
// package-lock.json) with Node's WASI, so the tests can write heap dumps with
// every Ruby version CI covers without building interpreters.
//
//   node --no-turbo-fast-api-calls tests/rubies/run-ruby.mjs VERSION \
//        [--mount HOST_DIR=GUEST_DIR]... [--env NAME=VALUE]... SCRIPT [ARGS...]
//
// SCRIPT and its ARGS are guest paths (inside a mount). --no-turbo-fast-api-calls
// is required: without it Node 20 crashes at random once the wasm memory grows
// (a Node bug with WASI fast API calls). Exit status: the script's. The guest
// has no current directory of its own: give SCRIPT and its files as absolute
// guest paths. Its stdin, stdout and stderr are this process's.
import { readFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";
import { RubyVM } from "@ruby/wasm-wasi";

// Node 20 warns once that WASI is experimental, on stderr, where a test would
// read it as the script's output; every other warning still prints.
// (--disable-warning=ExperimentalWarning does this only from Node 20.11.)
const printWarning = process.listeners("warning");
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name === "ExperimentalWarning" && /WASI/.test(warning.message)) return;
  for (const listener of printWarning) listener(warning);
});
// Imported only now: loading node:wasi is what warns.
const { WASI } = await import("node:wasi");

function usage(message) {
  process.stderr.write(`run-ruby: ${message}\n` +
    "usage: run-ruby.mjs VERSION [--mount HOST=GUEST]... [--env NAME=VALUE]... SCRIPT [ARGS...]\n");
  process.exit(64);
}

const argv = process.argv.slice(2);
const version = argv.shift();
if (!version || !/^\d+\.\d+$/.test(version)) usage("VERSION must look like 3.4");
const preopens = {};
const env = {};
while (argv.length > 0 && argv[0].startsWith("--")) {
  const flag = argv.shift();
  const value = argv.shift() ?? usage(`${flag} needs a value`);
  const eq = value.indexOf("=");
  if (eq <= 0) usage(`${flag} wants NAME=VALUE, got ${value}`);
  if (flag === "--mount") preopens[value.slice(eq + 1)] = path.resolve(value.slice(0, eq));
  else if (flag === "--env") env[value.slice(0, eq)] = value.slice(eq + 1);
  else usage(`unknown flag ${flag}`);
}
const [script, ...scriptArgs] = argv;
if (!script) usage("no SCRIPT");

const wasm = new URL(`./node_modules/@ruby/${version}-wasm-wasi/dist/ruby+stdlib.wasm`, import.meta.url);
let bytes;
try {
  bytes = await readFile(wasm);
} catch (error) {
  usage(`Ruby ${version} is not installed here (${error.code}); run npm ci in tests/rubies`);
}
const module = await WebAssembly.compile(bytes);
const wasi = new WASI({ version: "preview1", returnOnExit: true, args: ["ruby"], env, preopens });
const { vm } = await RubyVM.instantiateModule({ module, wasip1: wasi });
// The script is loaded by a small prologue that gives it the $0, ARGV and
// exit status it would have under a native ruby (the wasm VM only evaluates).
const prologue = `
  $0 = ${JSON.stringify(script)}
  ARGV.replace(${JSON.stringify(scriptArgs)})
  begin
    load($0)
    $stdout.flush
    0
  rescue SystemExit => e
    $stdout.flush
    e.status
  rescue Exception => e
    $stderr.puts("#{e.class}: #{e.message}", *e.backtrace.first(20))
    1
  end
`;
const status = Number(vm.eval(prologue).toString());
process.exitCode = status;
