#!/usr/bin/env node
// Installs the pinned npm packages of UiLibClientTest into a cache directory outside the checkout (see home.js):
// package.json's dependencies with `npm ci --ignore-scripts` from package-lock.json, then upstream's UI library
// (`packedAlone`) by `npm pack`, its sha512 checked against the pin, unpacked beside them without its own
// dependencies (React, PatternFly, ...: the API layer needs none of them). Prints the directory. Nothing is vendored.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { execFileSync } = require('child_process');
const home = require('./home');

function run(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

function main() {
  const dir = home.dir();
  if (fs.existsSync(path.join(dir, home.COMPLETE))) {
    console.log(dir);
    return;
  }
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  try {
    for (const f of ['package.json', 'package-lock.json']) {
      fs.copyFileSync(path.join(__dirname, f), path.join(tmp, f));
    }
    run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], tmp);
    const packed = require('./package.json').packedAlone;
    for (const [name, pin] of Object.entries(packed)) {
      const out = execFileSync('npm', ['pack', `${name}@${pin.version}`, '--json', '--loglevel=error'], {
        cwd: tmp,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const tgz = path.join(tmp, JSON.parse(out.toString())[0].filename);
      const [algo, want] = pin.integrity.split('-');
      const got = crypto.createHash(algo).update(fs.readFileSync(tgz)).digest('base64');
      if (got !== want) {
        throw new Error(`${name}@${pin.version}: integrity ${algo}-${got}, pinned ${pin.integrity}`);
      }
      const into = path.join(tmp, 'node_modules', ...name.split('/'));
      fs.mkdirSync(into, { recursive: true });
      run('tar', ['xzf', tgz, '-C', into, '--strip-components=1'], tmp);
      fs.rmSync(tgz);
    }
    fs.writeFileSync(path.join(tmp, home.COMPLETE), new Date().toISOString() + '\n');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  console.log(dir);
}

try {
  main();
} catch (e) {
  console.error(`uilib install failed: ${e.message}`);
  process.exit(1);
}
