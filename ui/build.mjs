// Builds the web UI (web/) into OUT for the rendezvous-ui jar: installs the pinned packages (npm ci, only when
// package-lock.json changed), bundles with Vite, then stores a gzip and a brotli copy of every compressible file
// and a manifest (a jar's directory cannot be listed). Skips all of it when nothing it reads changed since the
// last build into OUT. On a failure it writes OUT/missing.txt with the reason and exits 0: the app then serves a
// page saying so, and the browser test fails with that reason.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const web = path.join(path.dirname(new URL(import.meta.url).pathname), 'web');
const out = path.resolve(process.argv[2]);
const log = (m) => process.stderr.write(`rendezvous-ui: ${m}\n`);

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

function sha256(...buffers) {
  const h = crypto.createHash('sha256');
  buffers.forEach((b) => h.update(b));
  return h.digest('hex');
}

function inputsHash() {
  const inputs = ['package.json', 'package-lock.json', 'index.html', 'vite.config.js']
    .map((f) => path.join(web, f))
    .concat(filesUnder(path.join(web, 'src')), filesUnder(path.join(web, 'public')))
    .concat([new URL(import.meta.url).pathname])
    .sort();
  return sha256(...inputs.flatMap((f) => [path.relative(web, f), fs.readFileSync(f)]), process.version);
}

function install() {
  const lock = fs.readFileSync(path.join(web, 'package-lock.json'));
  const stamp = path.join(web, 'node_modules', '.rendezvous-lock-sha256');
  const want = sha256(lock, process.version);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return;
  log('installing the pinned npm packages (npm ci)...');
  // --ignore-scripts: nothing the UI uses needs an install script (Vite's native parts are plain optional packages)
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: web,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  fs.writeFileSync(stamp, want);
}

const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.map', '.txt', '.ttf', '.eot']);

function precompress(dir) {
  const names = [];
  for (const f of filesUnder(dir)) {
    const rel = path.relative(dir, f);
    names.push(rel);
    const data = fs.readFileSync(f);
    if (!COMPRESSIBLE.has(path.extname(f)) || data.length < 1024) continue;
    fs.writeFileSync(`${f}.gz`, zlib.gzipSync(data, { level: 9 }));
    fs.writeFileSync(
      `${f}.br`,
      zlib.brotliCompressSync(data, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 10, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      }),
    );
  }
  return names.sort();
}

function main() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    throw new Error(`Node.js 20.19 or newer is needed to bundle the UI (Vite 8); this machine has ${process.version}`);
  }
  const hash = inputsHash();
  const stampFile = path.join(out, 'inputs.sha256');
  if (fs.existsSync(path.join(out, 'manifest.txt')) && fs.existsSync(stampFile)
      && fs.readFileSync(stampFile, 'utf8') === hash) {
    return;
  }
  const started = Date.now();
  install();
  const tmp = `${out}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(web, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: web,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, RDV_UI_OUT: tmp },
  });
  const names = precompress(tmp);
  fs.writeFileSync(path.join(tmp, 'manifest.txt'), names.join('\n') + '\n');
  fs.writeFileSync(path.join(tmp, 'inputs.sha256'), hash);
  fs.rmSync(out, { recursive: true, force: true });
  fs.renameSync(tmp, out);
  log(`built the web UI in ${((Date.now() - started) / 1000).toFixed(1)} s (${names.length} files)`);
}

try {
  main();
} catch (e) {
  fs.mkdirSync(out, { recursive: true });
  fs.rmSync(path.join(out, 'manifest.txt'), { force: true });
  fs.writeFileSync(path.join(out, 'missing.txt'), `The web UI build failed: ${e.message.split('\n')[0]}\n`);
  log(`the web UI build failed, it is left out of this build: ${e.message}`);
}
