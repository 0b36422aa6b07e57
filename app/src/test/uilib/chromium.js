'use strict';
// Debian's Chromium for the browser-side scripts (browser.js, list-bench.js), started as the machine's notes say:
// headless, no sandbox as root, no background networking on a closed network, a profile of its own.
const fs = require('fs');
const path = require('path');
const Module = require('module');
const home = require('./home');

/** Starts a Chromium with a new profile under profileParent; throws when the packages are not installed. */
async function launch(profileParent, executablePath = '/usr/bin/chromium') {
  const puppeteer = Module.createRequire(path.join(home.installed(), 'package.json'))('puppeteer-core');
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    userDataDir: fs.mkdtempSync(path.join(profileParent, 'profile-')),
  });
}

module.exports = { launch };
