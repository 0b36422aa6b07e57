#!/usr/bin/env node
// UiBrowserTest's browser side: the web UI Rendezvous serves at / (upstream's Assisted Installer UI library in our
// shell), driven in Debian's headless Chromium by puppeteer-core as a person would: the token page, then two
// clusters through the wizard's forms, a single-node one and a 3 + 2 one (name, base domain, pull secret, control
// plane count; the 3 + 2 one's API and Ingress VIPs), the discovery ISO URL read off the "Add host" dialog, the
// hosts (dry-run agents the caller boots) watched into the table, a hostname and roles set from the UI, Install,
// the progress followed to the installed page and the kubeconfig downloaded from it.
//
//   node browser.js --url=http://127.0.0.1:8090 --token=TOKEN --work=DIR [--timeout-seconds=300]
//
// Prints JSON lines: {"step":...} as it goes; {"agents":{infraEnv, cluster, hosts, isoUrl, cidr}} asks the caller to
// boot that many hosts into the infra-env; {"kubeconfig":{cluster, file}} when a download is done; last
// {"summary":...} with every request the page made that was answered 4xx or 5xx, the load timings and the
// clusters. Screenshots of each step go to DIR/NN-name.png. Exit 0 when the flow went through, 1 when a step
// failed (with {"fatal":...} and a screenshot of each tab, DIR/failure-tabN.png), 2 when it could not start.
'use strict';
const fs = require('fs');
const path = require('path');
const home = require('./home');
const chromium = require('./chromium');

const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const m = /^--([^=]+)=(.*)$/.exec(a);
  return m ? [m[1], m[2]] : [a, ''];
}));
const BASE = args.url;
const TOKEN = args.token;
const WORK = path.resolve(args.work || 'ui-screens');
const DEADLINE = Date.now() + 1000 * Number(args['timeout-seconds'] || 300);
const CHROMIUM = args.chromium || '/usr/bin/chromium';
const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dWk6YnJvd3Nlcg==","email":"ui@browser"}}}';

const emit = (o) => console.log(JSON.stringify(o));
function fatalStart(message) {
  emit({ fatal: message });
  process.exit(2);
}
if (!BASE || !TOKEN) {
  fatalStart('--url and --token are required');
}
try {
  home.installed();
} catch (e) {
  fatalStart(e.message);
}
fs.mkdirSync(WORK, { recursive: true });
const DOWNLOADS = path.join(WORK, 'downloads');
fs.mkdirSync(DOWNLOADS, { recursive: true });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const left = () => Math.max(1000, DEADLINE - Date.now());
let shots = 0;
const requests = [];
const badRequests = [];
const timings = {};
const started = Date.now();
const step = (name, extra) => emit({ step: name, t: Math.round((Date.now() - started) / 1000), ...extra });
const visibleText = () => document.body.innerText;

/** The steps a person takes, in one page (each flow has its own, side by side). */
function tab(page) {
  async function shot(name) {
    shots += 1;
    const file = path.join(WORK, `${String(shots).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  }

  /** Waits until fn (run in the page) returns something truthy; returns it. */
  async function until(what, fn, arg, timeoutMs = 30000) {
    const end = Date.now() + Math.min(timeoutMs, left());
    for (;;) {
      const v = await page.evaluate(fn, arg).catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(250);
    }
  }

  async function waitText(text, timeoutMs) {
    await until(`"${text}" on the page`, (t) => document.body.innerText.includes(t), text, timeoutMs);
  }

  /** Clicks the visible element matching selector whose text starts with text. */
  async function click(selector, text, timeoutMs) {
    await until(`${selector} "${text}"`, ([sel, t]) => {
      const e = [...document.querySelectorAll(sel)].find((x) => x.offsetParent !== null
        && (x.innerText || x.textContent || '').trim().startsWith(t) && !x.disabled
        && x.getAttribute('aria-disabled') !== 'true');
      if (e) e.click();
      return !!e;
    }, [selector, text], timeoutMs);
  }

  async function typeInto(selector, value) {
    await page.waitForSelector(selector, { visible: true, timeout: left() });
    await page.$eval(selector, (e) => {
      e.focus();
      if (e.select) e.select();
    });
    await page.keyboard.press('Backspace');
    await page.type(selector, value);
  }

  async function next() {
    await click('button[name=next]', 'Next');
  }

  /** The wizard's first steps: details, operators; returns the cluster id (the URL once it exists). */
  async function createCluster(name, controlPlane) {
    await page.goto(`${BASE}/assisted-installer/clusters/~new`, { waitUntil: 'networkidle0', timeout: left() });
    await typeInto('#form-input-name-field', name);
    await typeInto('#form-input-baseDnsDomain-field', 'example.com');
    await typeInto('#form-input-pullSecret-field', PULL_SECRET);
    await page.click('#form-input-controlPlaneCount-field');
    await click('button', `${controlPlane} (`);
    await shot(`${name}-details`);
    await next();
    const id = await until('the cluster to be created', () => {
      const m = /\/clusters\/([0-9a-f-]{36})/.exec(location.pathname);
      return m && m[1];
    });
    await waitText('Operators');
    await next();
    await page.waitForSelector('#host-inventory-button-download-discovery-iso', { visible: true, timeout: left() });
    return id;
  }

  /** "Add host": generates the discovery ISO and reads its URL off the dialog; asks for the hosts to boot. */
  async function addHosts(name, clusterId, hosts, cidr) {
    await page.click('#host-inventory-button-download-discovery-iso');
    await page.waitForSelector('[data-testid=generate-discovery-iso-button]', { visible: true, timeout: left() });
    await page.click('[data-testid=generate-discovery-iso-button]');
    const isoUrl = await until('the discovery ISO URL', () => [...document.querySelectorAll('input')]
      .map((e) => e.value).find((v) => /^https?:\/\/.*\/images\/[0-9a-f-]{36}/.test(v)));
    await shot(`${name}-iso`);
    const infraEnv = /\/images\/([0-9a-f-]{36})/.exec(isoUrl)[1];
    emit({ agents: { infraEnv, cluster: clusterId, hosts, isoUrl, cidr } });
    await click('button', 'Close');
    // the hosts appear in the table and pass their validations
    await until(`${hosts} hosts Ready in the table`, (n) => {
      const rows = [...document.querySelectorAll('tbody tr')].filter((r) => r.querySelector('[id^=expand-toggle]'));
      return rows.length === n && rows.every((r) => /\bReady\b/.test(r.innerText));
    }, hosts, 90000);
    await shot(`${name}-hosts`);
  }

  async function setHostname(from, to) {
    await click('tbody button', from);
    await typeInto('#form-input-hostname-field', to);
    await shot(`hostname-${to}`);
    await page.click('[data-testid=change-hostname-form__button-change]');
    await until(`hostname ${to} in the table`, (t) => [...document.querySelectorAll('tbody button')]
      .some((b) => b.innerText.trim() === t), to);
  }

  async function setRole(rowIndex, roleId) {
    const toggles = await page.$$('button#role--dropdown-toggle-items');
    await toggles[rowIndex].click();
    await page.waitForSelector(`button[role=menuitem]#${roleId}`, { visible: true, timeout: left() });
    await page.click(`button[role=menuitem]#${roleId}`);
    await sleep(300);
  }

  /** From the host discovery step through storage, networking (VIPs when given) and review to Install. */
  async function install(name, vips) {
    await next(); // storage
    await waitText('Storage');
    await next(); // networking
    await page.waitForSelector('#form-input-machineNetworks-0-cidr-field', { visible: true, timeout: left() });
    if (vips) {
      await typeInto('#form-input-apiVips-0-ip-field', vips.api);
      await typeInto('#form-input-ingressVips-0-ip-field', vips.ingress);
      await page.keyboard.press('Tab');
      // the wizard saves the form on its own; the Next button opens once the cluster is ready
    }
    await shot(`${name}-networking`);
    await until('the networking step to be saved', () => {
      const b = [...document.querySelectorAll('button[name=next]')][0];
      return b && !b.disabled && b.getAttribute('aria-disabled') !== 'true';
    }, null, 60000);
    await next(); // review
    await page.waitForSelector('[data-testid=button-install-cluster]', { visible: true, timeout: left() });
    await until('Install cluster enabled', () => {
      const b = document.querySelector('[data-testid=button-install-cluster]');
      return b && !b.disabled && b.getAttribute('aria-disabled') !== 'true';
    }, null, 60000);
    await shot(`${name}-review`);
    await page.click('[data-testid=button-install-cluster]');
    await waitText('Installation progress', 60000).catch(() => waitText('Installing', 1000));
    await sleep(1500);
    await shot(`${name}-installing`);
    await until('the installed page', () => /Installed/.test(document.body.innerText)
      && [...document.querySelectorAll('button')].some((b) => b.innerText.trim() === 'Download kubeconfig'), null, 240000);
    await shot(`${name}-installed`);
  }

  async function downloadKubeconfig(name, clusterId) {
    const dir = path.join(DOWNLOADS, name);
    fs.mkdirSync(dir, { recursive: true });
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
    await click('button', 'Download kubeconfig');
    const file = await (async () => {
      const end = Date.now() + 30000;
      for (;;) {
        const done = fs.readdirSync(dir).filter((f) => !f.endsWith('.crdownload'));
        if (done.length) return path.join(dir, done[0]);
        if (Date.now() > end) throw new Error('the kubeconfig download did not arrive');
        await sleep(200);
      }
    })();
    emit({ kubeconfig: { cluster: clusterId, file } });
  }

  /** Time from navigation to the clusters list shown (or the token page when none is stored). */
  async function timeLoad(label, action) {
    const started = Date.now();
    await action();
    await until('the first screen', () => !!document.querySelector('#rdv-token')
      || /Create New Cluster|Assisted Clusters/.test(document.body.innerText), null, 30000);
    timings[label] = Date.now() - started;
    step('timing', { [label]: timings[label] });
  }

  return { shot, until, waitText, click, typeInto, next, createCluster, addHosts, setHostname, setRole, install, downloadKubeconfig, timeLoad };
}

async function main() {
  // one browser per person: a tab in the background of a shared browser stalls (its evaluations time out)
  const browsers = [];
  const launch = async () => {
    const browser = await chromium.launch(WORK, CHROMIUM);
    browsers.push(browser);
    return browser;
  };
  const pages = [];
  const open = async () => {
    const page = await (await launch()).newPage();
    pages.push(page);
    await page.setViewport({ width: 1400, height: 1000 });
    page.on('response', (r) => {
      const u = new URL(r.url());
      const entry = { method: r.request().method(), path: u.pathname, status: r.status() };
      requests.push(entry);
      if (r.status() >= 400) badRequests.push(entry);
    });
    page.on('requestfailed', (r) => {
      const u = new URL(r.url());
      if (u.origin === new URL(BASE).origin) {
        badRequests.push({ method: r.method(), path: u.pathname, status: 0, error: r.failure()?.errorText });
      }
    });
    page.on('pageerror', (e) => step('page error', { message: String(e.message).slice(0, 300) }));
    return page;
  };
  try {
    const page = await open();
    const a = tab(page);
    // cold: a new profile, nothing cached; the token page is the first screen
    await a.timeLoad('first_load_cold_ms', () => page.goto(`${BASE}/`, { timeout: left() }));
    await page.waitForSelector('#rdv-token', { visible: true, timeout: left() });
    await a.shot('token-page');
    await a.typeInto('#rdv-token', 'not-a-token');
    await page.click('#rdv-token-form button[type=submit]');
    await a.waitText('This token was refused.');
    await a.typeInto('#rdv-token', TOKEN);
    await page.click('#rdv-token-form button[type=submit]');
    await a.waitText('Create New Cluster');
    await a.shot('clusters-empty');
    // warm: the same page again with everything cached and the token kept for the session
    await a.timeLoad('first_load_warm_ms', () => page.reload({ timeout: left() }));

    // the two clusters side by side, each in a browser of its own (as two people would; the page polls its cluster
    // every 10 s, so one after the other would mostly wait). The second one signs in with the #token= fragment.
    const single = async () => {
      step('single-node cluster');
      const sno = await a.createCluster('ui-sno', 1);
      await a.addHosts('ui-sno', sno, 1, '10.210.0.0/16');
      await a.setHostname('rdv-dry-0', 'sno-master-0');
      await a.install('ui-sno', null);
      await a.downloadKubeconfig('ui-sno', sno);
      // a deep link loads the page it names: the installed cluster with the host under the name given above
      await page.goto(`${BASE}/clusters/${sno}`, { waitUntil: 'networkidle0', timeout: left() });
      await a.until('the deep link to land on the cluster', (id) => location.pathname === `/assisted-installer/clusters/${id}`
        && document.body.innerText.includes('ui-sno'), sno);
      await a.click('button', 'Host inventory');
      await a.waitText('sno-master-0');
      await a.shot('ui-sno-deep-link');
      step('single-node cluster installed');
      return sno;
    };
    const threePlusTwo = async () => {
      const page2 = await open();
      const b = tab(page2);
      await page2.goto(`${BASE}/#token=${encodeURIComponent(TOKEN)}`, { waitUntil: 'networkidle0', timeout: left() });
      step('3 + 2 cluster');
      const ha = await b.createCluster('ui-ha', 3);
      await b.addHosts('ui-ha', ha, 5, '10.211.0.0/16');
      await b.setRole(3, 'worker');
      await b.setRole(4, 'worker');
      await b.setRole(0, 'master');
      await b.until('the roles in the table', () => [...document.querySelectorAll('button#role--dropdown-toggle-items')]
        .map((x) => x.innerText.trim()).filter((t) => t === 'Worker').length === 2);
      await b.shot('ui-ha-roles');
      await b.install('ui-ha', { api: '10.211.255.1', ingress: '10.211.255.2' });
      await b.downloadKubeconfig('ui-ha', ha);
      step('3 + 2 cluster installed');
      return ha;
    };
    const [sno, ha] = await Promise.all([single(), threePlusTwo()]);

    // the list shows both, and a token the service refuses brings the token page back
    await page.goto(`${BASE}/assisted-installer/clusters`, { waitUntil: 'networkidle0', timeout: left() });
    await a.waitText('ui-ha');
    await a.shot('clusters-list');
    await page.evaluate(() => sessionStorage.setItem('rdv-token', 'revoked-or-wrong'));
    await page.reload({ waitUntil: 'networkidle0', timeout: left() });
    await page.waitForSelector('#rdv-token', { visible: true, timeout: 30000 });
    await a.shot('token-page-after-401');

    emit({ summary: { clusters: { sno, ha }, requests: requests.length, bad: badRequests, timings, screenshots: shots } });
  } catch (e) {
    for (const [i, p] of pages.entries()) {
      await p.screenshot({ path: path.join(WORK, `failure-tab${i + 1}.png`), fullPage: true }).catch(() => {});
      fs.writeFileSync(path.join(WORK, `failure-tab${i + 1}.txt`), await p.evaluate(visibleText).catch(() => ''));
    }
    emit({ fatal: String(e && e.stack || e), bad: badRequests, timings });
    process.exitCode = 1;
  } finally {
    await Promise.all(browsers.map((b) => b.close().catch(() => {})));
  }
}

main();
