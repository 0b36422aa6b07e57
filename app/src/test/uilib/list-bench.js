#!/usr/bin/env node
// UiListBench's browser side: how the web UI's clusters list behaves with as many clusters as the service holds.
// In Debian's headless Chromium (puppeteer-core), with the assets cached (a warm browser), ROUNDS times:
//   load_ms          navigation to /assisted-installer/clusters until the first page of rows is drawn
//   longest_task_ms  the longest main-thread task meanwhile (the page's worst freeze; Chromium's long-task timing)
//   filter_ms        a cluster's id typed into the filter until only its row is left
//   next_page_ms     the next-page button until the second page is drawn (0 when there is one page)
//
//   node list-bench.js --url=http://127.0.0.1:8090 --token=TOKEN --find=CLUSTER_ID [--rounds=5]
//
// Prints one JSON line: {"rounds":[{...}, ...]}, or {"fatal":...} (exit 1).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const chromium = require('./chromium');

const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const m = /^--([^=]+)=(.*)$/.exec(a);
  return m ? [m[1], m[2]] : [a, ''];
}));
const ROUNDS = Number(args.rounds || 5);

async function main() {
  const browser = await chromium.launch(fs.mkdtempSync(path.join(os.tmpdir(), 'rdv-list-bench-')),
    args.chromium || '/usr/bin/chromium');
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    await page.evaluateOnNewDocument(() => {
      window.__longest = 0;
      new PerformanceObserver((list) => list.getEntries().forEach((e) => {
        window.__longest = Math.max(window.__longest, e.duration);
      })).observe({ type: 'longtask', buffered: true });
    });
    // the token for the session, and every asset in the cache
    await page.goto(`${args.url}/#token=${encodeURIComponent(args.token)}`, { waitUntil: 'networkidle0' });
    const rowCount = () => document.querySelectorAll('#clusters-table tbody tr').length;
    const firstRow = () => document.querySelector('#clusters-table tbody tr')?.innerText ?? '';
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      let t = Date.now();
      await page.goto(`${args.url}/assisted-installer/clusters`, { waitUntil: 'domcontentloaded' });
      await page.waitForFunction(rowCount, { timeout: 60000, polling: 20 });
      const load = Date.now() - t;
      const longest = Math.round(await page.evaluate(() => window.__longest));
      let nextPage = 0;
      const next = await page.$('#clusters-pagination-bottom button[data-action=next]:not([disabled])');
      if (next) {
        const before = await page.evaluate(firstRow);
        t = Date.now();
        await next.click();
        await page.waitForFunction((b) => (document.querySelector('#clusters-table tbody tr')?.innerText ?? '') !== b,
          { timeout: 60000, polling: 20 }, before);
        nextPage = Date.now() - t;
      }
      const input = (await page.$('#search-string input')) || (await page.$('input#search-string'));
      t = Date.now();
      await page.evaluate((el, v) => {
        // the whole id at once, as a paste: one change for the list to follow
        const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
        set.call(el, v);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, input, args.find);
      await page.waitForFunction(() => document.querySelectorAll('#clusters-table tbody tr').length === 1,
        { timeout: 60000, polling: 20 });
      const filter = Date.now() - t;
      rounds.push({ load_ms: load, longest_task_ms: longest, filter_ms: filter, next_page_ms: nextPage });
    }
    console.log(JSON.stringify({ rounds }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.log(JSON.stringify({ fatal: String(e && e.stack || e) }));
  process.exit(1);
});
