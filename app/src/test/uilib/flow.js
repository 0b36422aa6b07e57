#!/usr/bin/env node
// A whole user flow against a running Rendezvous through upstream's UI library's own API layer
// (@openshift-assisted/ui-lib: ClustersAPI, InfraEnvsAPI, HostsAPI, ... on its axios client with its case
// converter and base path, authenticated through its setAuthInterceptor). Every response, as the UI sees it
// (camelCase), is checked against upstream's model for that operation (schemas.js).
//
//   node flow.js --url=http://127.0.0.1:8090 --token=TOKEN [--hosts=3] [--work=DIR] [--timeout-seconds=150]
//
// Prints one JSON line per call ({"call":...}); when the cluster and its infra-env exist, {"agents":{...}} asks
// the caller to boot --hosts discovery agents into that infra-env (UiLibClientTest starts dry-run agents); the last
// line is {"summary":...}. Every response in full goes to DIR/uilib-calls.jsonl. Exit 0 when every call answered
// the expected status and every response matched its model; 1 otherwise (the summary lists why); 2 when the
// packages are not installed or the flow could not run.
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');
const home = require('./home');

const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const m = /^--([^=]+)=(.*)$/.exec(a);
  if (!m) {
    fatal(`bad argument ${a}`);
  }
  return [m[1], m[2]];
}));
const URL_BASE = args.url;
const TOKEN = args.token;
const HOSTS = Number(args.hosts || 3);
const WORK = path.resolve(args.work || '.');
const DEADLINE = Date.now() + 1000 * Number(args['timeout-seconds'] || 150);
const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dWlsaWI6cHJvb2Y=","email":"ui@lib"}}}';
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl uilib@rdv';

function fatal(message) {
  console.log(JSON.stringify({ fatal: message }));
  process.exit(2);
}

if (!URL_BASE || !TOKEN) {
  fatal('--url and --token are required');
}
let installed;
try {
  installed = home.installed();
} catch (e) {
  fatal(e.message);
}
const need = Module.createRequire(path.join(installed, 'package.json'));
const UILIB = path.join(installed, 'node_modules', '@openshift-assisted', 'ui-lib', 'build', 'cjs', 'common', 'api');
const TYPES = path.join(installed, 'node_modules', '@openshift-assisted', 'types', 'assisted-installer-service.d.ts');

// ---- upstream's UI library: its client, its auth hook, its API objects ---------------------------------------
const axiosClient = require(path.join(UILIB, 'axiosClient.js'));
axiosClient.setAuthInterceptor((instance) => {
  instance.interceptors.request.use((cfg) => {
    cfg.headers = cfg.headers || {};
    cfg.headers.Authorization = `Bearer ${TOKEN}`;
    return cfg;
  });
  return instance;
});
// The UI runs on the API's origin; here the origin is given
axiosClient.client.defaults.baseURL = URL_BASE;
axiosClient.clientWithoutCaseConverter.defaults.baseURL = URL_BASE;
const api = require(path.join(UILIB, 'assisted-service', 'index.js'));
const { ClustersAPI, InfraEnvsAPI, HostsAPI, EventsAPI, ManagedDomainsAPI, ComponentVersionsAPI,
  SupportedOpenshiftVersionsAPI, NewFeatureSupportLevelsAPI, UISettingsAPI } = api;
const OperatorsAPI = require(path.join(UILIB, 'assisted-service', 'OperatorsAPI.js')).default;
const BundleAPI = require(path.join(UILIB, 'assisted-service', 'BundleAPI.js')).default;

// ---- upstream's models -------------------------------------------------------------------------------------
const schemas = require('./schemas').generate(need('ts-json-schema-generator'), TYPES, path.join(WORK, 'uilib-schemas'));
// Where the types package departs from the swagger the service implements (assisted-service's swagger.yaml at
// 063b257, the commit shared/reference/assisted-v2-api.md was read from): amended here, each with its reason, and
// nowhere else.
const enumOf = (def) => (def.enum ? def : def.properties.status);
const AMENDMENTS = [
  // newer than types 2.17.1-cim: v2RegisterDisconnectedCluster's kind and status
  ['Cluster', (d) => d.properties.kind.enum.push('DisconnectedCluster')],
  ['Cluster', (d) => d.properties.status.enum.push('unmonitored')],
  // the UI team's generator camelCases enum values; the swagger's (and upstream's service's) are snake_case
  ['LastInstallationPreparation', (d) => { enumOf(d).enum = ['not_started', 'failed', 'success']; }],
  ['SourceState', (d) => { d.enum = d.enum.map((v) => (v === 'notCombined' ? 'not_combined' : v)); }],
  // newer than types 2.17.1-cim: ids the swagger's feature-support-level-id lists
  ['FeatureSupportLevelId', (d) => d.enum.push('TNF', 'CILIUM_NETWORK_TYPE', 'CALICO_NETWORK_TYPE',
    'CISCO_ACI_NETWORK_TYPE', 'NONE_NETWORK_TYPE', 'DUAL_STACK_PRIMARY_IPV6')],
];
for (const defs of [schemas.open, schemas.closed]) {
  for (const [name, amend] of AMENDMENTS) {
    amend(defs[name]);
  }
}
const Ajv = need('ajv');
const addFormats = need('ajv-formats');
function compiler(defs) {
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'upstream', definitions: defs });
  const cache = new Map();
  return (model) => {
    const key = JSON.stringify(model);
    if (!cache.has(key)) {
      cache.set(key, ajv.compile(model));
    }
    return cache.get(key);
  };
}
const strict = compiler(schemas.open);
const closed = compiler(schemas.closed);
const ref = (name) => ({ $ref: `upstream#/definitions/${name}` });
const arrayOf = (name) => ({ type: 'array', items: ref(name) });
const M = {
  string: { type: 'string' },
  strings: { type: 'array', items: { type: 'string' } },
  none: null, // no body (204, or 201/200 without a schema): not checked
  text: 'text', // a download: a non-empty text body
};
// the support-level answers: upstream's swagger wraps support-levels ({id: level}) in one named property, whose keys
// are its feature-support-level-id (or architecture-support-level-id) values: the UI looks them up by those ids
const supportLevels = (prop, ids) => ({
  type: 'object', required: [prop],
  properties: { [prop]: { allOf: [ref('SupportLevels'), { propertyNames: ref(ids) }] } },
});

// ---- capture ----------------------------------------------------------------------------------------------
fs.mkdirSync(WORK, { recursive: true });
const capture = fs.openSync(path.join(WORK, 'uilib-calls.jsonl'), 'w');
const calls = [];
const violations = new Map(); // "op: where message" -> count
const notes = new Map();
const unexpected = [];
const operations = new Set();

function summarize(errors) {
  return errors.map((e) => {
    const where = e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/';
    const extra = e.keyword === 'additionalProperties' ? ` '${e.params.additionalProperty}'`
      : e.keyword === 'enum' ? ` ${JSON.stringify(e.params.allowedValues)}` : '';
    return `${where} ${e.message}${extra}`;
  });
}

/**
 * One call through the ui-lib: `op` names the ui-lib API method (or `client GET ...` for a path the UI library
 * reaches with its client only), `fn` makes it, `model` is upstream's response model, `expect` the statuses
 * upstream's swagger gives for success, `notYet` statuses that only mean "try again" (a poll). Returns the data the
 * UI would see, or null when the call did not succeed.
 */
async function call(op, fn, model, expect, notYet = []) {
  operations.add(op);
  let res;
  let error = null;
  try {
    res = await fn();
  } catch (e) {
    if (!e.response) {
      throw e;
    }
    res = e.response;
    error = e.message;
  }
  const method = (res.config.method || 'get').toUpperCase();
  const where = res.request && res.request.path ? res.request.path : res.config.url;
  const record = { op, method, path: where, status: res.status };
  const problems = [];
  if (notYet.includes(res.status)) {
    record.notYet = true;
  } else if (!expect.includes(res.status)) {
    problems.push(`status ${res.status}, expected ${expect.join('/')}`);
    unexpected.push(`${op} ${method} ${where}: ${res.status} ${typeof res.data === 'string' ? res.data
      : JSON.stringify(res.data)}`.slice(0, 400));
  } else if (model === M.text) {
    if (typeof res.data !== 'string' || res.data.length === 0) {
      problems.push('empty download');
      violations.set(`${op}: empty download`, (violations.get(`${op}: empty download`) || 0) + 1);
    }
  } else if (model) {
    const v = strict(model);
    if (!v(res.data)) {
      for (const s of summarize(v.errors)) {
        problems.push(s);
        violations.set(`${op}: ${s}`, (violations.get(`${op}: ${s}`) || 0) + 1);
      }
    }
    const c = closed(model);
    if (!c(res.data)) {
      for (const s of summarize(c.errors.filter((e) => e.keyword === 'additionalProperties'))) {
        notes.set(`${op}: ${s}`, (notes.get(`${op}: ${s}`) || 0) + 1);
      }
    }
  }
  record.problems = problems;
  calls.push(record);
  console.log(JSON.stringify({ call: record }));
  fs.writeSync(capture, JSON.stringify({ ...record, error, body: res.data }) + '\n');
  return expect.includes(res.status) ? res.data : null;
}

/** What the browser does with a presigned URL the UI got: a plain GET, no credentials but the URL's own. */
async function browserGet(op, presigned) {
  if (!presigned || !presigned.url) {
    return;
  }
  const u = new URL(presigned.url);
  await call(op, () => need('axios').get(`${URL_BASE}${u.pathname}${u.search}`, { responseType: 'text' }), M.text,
    [200]);
}

function remaining() {
  return DEADLINE - Date.now();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Calls `probe` every `everyMs` until it returns a truthy value; the value, or an Error naming `what`. */
async function until(what, everyMs, probe) {
  for (;;) {
    const v = await probe();
    if (v) {
      return v;
    }
    if (remaining() <= 0) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(everyMs);
  }
}

// ---- the flow ----------------------------------------------------------------------------------------------
async function flow() {
  const version = '4.18';
  const arch = 'x86_64';
  // The wizard's first screen: versions, operators, support levels, domains, bundles, defaults.
  // The ui-lib declares OpenshiftVersion[] for this call but reads the answer as the map the swagger gives
  // (openshift-versions: version -> openshift-version, see its OpenShiftVersionsContext): checked as the map
  await call('SupportedOpenshiftVersionsAPI.list(false)', () => SupportedOpenshiftVersionsAPI.list(false),
    ref('OpenshiftVersions'), [200]);
  await call('SupportedOpenshiftVersionsAPI.list(true)', () => SupportedOpenshiftVersionsAPI.list(true),
    ref('OpenshiftVersions'), [200]);
  await call('OperatorsAPI.list', () => OperatorsAPI.list(), M.strings, [200]);
  const features = await call('NewFeatureSupportLevelsAPI.featuresSupportLevel',
    () => NewFeatureSupportLevelsAPI.featuresSupportLevel(version, arch, 'baremetal'),
    supportLevels('features', 'FeatureSupportLevelId'), [200]);
  noteMissingKeys('NewFeatureSupportLevelsAPI.featuresSupportLevel', features && features.features,
    'FeatureSupportLevelId');
  const archs = await call('NewFeatureSupportLevelsAPI.architecturesSupportLevel',
    () => NewFeatureSupportLevelsAPI.architecturesSupportLevel(version),
    supportLevels('architectures', 'ArchitectureSupportLevelId'), [200]);
  noteMissingKeys('NewFeatureSupportLevelsAPI.architecturesSupportLevel', archs && archs.architectures,
    'ArchitectureSupportLevelId');
  // not in the ui-lib's API objects: through its client. The types package (2.17.1-cim) has no model of the
  // detailed features; the swagger's feature and operator definitions are written here from the types' own ids
  // and levels (required: feature-support-level-id, support_level, incompatibilities; operators also name and
  // dependencies). The client's case converter leaves the dashed key as it is.
  const feature = {
    type: 'object', required: ['feature-support-level-id', 'supportLevel', 'incompatibilities'],
    properties: { 'feature-support-level-id': ref('FeatureSupportLevelId'), supportLevel: ref('SupportLevel'),
      incompatibilities: arrayOf('FeatureSupportLevelId') },
  };
  const operator = {
    allOf: [feature, { type: 'object', required: ['name', 'dependencies'],
      properties: { name: { type: 'string' }, dependencies: arrayOf('FeatureSupportLevelId') } }],
  };
  await call('client GET /v2/support-levels/features/detailed',
    () => axiosClient.client.get(`/v2/support-levels/features/detailed?openshift_version=${version}&cpu_architecture=${arch}`),
    { type: 'object', required: ['features', 'operators'],
      properties: { features: { type: 'array', items: feature }, operators: { type: 'array', items: operator } } },
    [200]);
  await call('client GET /v2/release-sources', () => axiosClient.client.get('/v2/release-sources'),
    ref('ReleaseSources'), [200]);
  await call('ComponentVersionsAPI.list', () => ComponentVersionsAPI.list(), ref('ListVersions'), [200]);
  await call('ManagedDomainsAPI.list', () => ManagedDomainsAPI.list(), ref('ListManagedDomains'), [200]);
  await call('BundleAPI.list', () => BundleAPI.list(version, arch, 'baremetal'), arrayOf('Bundle'), [200]);
  await call('ClustersAPI.getDefaultConfig', () => ClustersAPI.getDefaultConfig(), ref('ClusterDefaultConfig'), [200]);
  await call('ClustersAPI.list', () => ClustersAPI.list(), ref('ClusterList'), [200]);

  // A cluster with an OLM operator, then its details page
  const cluster = await call('ClustersAPI.register', () => ClustersAPI.register({
    name: 'uilib', openshiftVersion: version, pullSecret: PULL_SECRET, baseDnsDomain: 'example.com',
    cpuArchitecture: arch, controlPlaneCount: 3, olmOperators: [{ name: 'nmstate' }],
  }), ref('Cluster'), [201]);
  if (!cluster || !cluster.id) {
    throw new Error('ClustersAPI.register gave no cluster');
  }
  const id = cluster.id;
  await call('ClustersAPI.get', () => ClustersAPI.get(id), ref('Cluster'), [200]);
  await call('UISettingsAPI.get', () => UISettingsAPI.get(id), M.string, [200]);
  const settings = `AI_UI:${JSON.stringify({ addCustomManifests: true })}`; // as the ui-lib's UISettingsService
  const put = await call('UISettingsAPI.put', () => UISettingsAPI.put(id, settings), M.string, [200]);
  const got = await call('UISettingsAPI.get', () => UISettingsAPI.get(id), M.string, [200]);
  if (got !== settings) {
    unexpected.push(`UISettingsAPI.get answered ${JSON.stringify(got)} after a put of ${JSON.stringify(settings)}`
      + ` (the put answered ${JSON.stringify(put)})`);
  }
  await call('ClustersAPI.getPreflightRequirements', () => ClustersAPI.getPreflightRequirements(id),
    ref('PreflightHardwareRequirements'), [200]);
  await call('client GET /v2/clusters/{id}/supported-platforms',
    () => axiosClient.client.get(`/v2/clusters/${id}/supported-platforms`), arrayOf('PlatformType'), [200]);
  await call('ClustersAPI.update', () => ClustersAPI.update(id, {
    sshPublicKey: SSH_KEY, apiVips: [{ ip: '10.200.255.1' }], ingressVips: [{ ip: '10.200.255.2' }],
  }), ref('Cluster'), [201]);
  // the custom manifests page
  const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: uilib\n  namespace: default\ndata:\n  a: b\n';
  await call('ClustersAPI.createCustomManifest', () => ClustersAPI.createCustomManifest(id, {
    folder: 'openshift', fileName: 'uilib.yaml', content: Buffer.from(yaml).toString('base64'),
  }), ref('Manifest'), [201]);
  await call('ClustersAPI.getManifests', () => ClustersAPI.getManifests(id), ref('ListManifests'), [200]);
  await call('ClustersAPI.getManifestContent', () => ClustersAPI.getManifestContent(id, 'openshift', 'uilib.yaml'),
    M.text, [200]);
  await call('ClustersAPI.updateCustomManifest', () => ClustersAPI.updateCustomManifest(id, {
    folder: 'openshift', fileName: 'uilib.yaml', updatedFolder: 'openshift', updatedFileName: 'uilib-2.yaml',
    updatedContent: Buffer.from(yaml.replace('a: b', 'a: c')).toString('base64'),
  }), ref('Manifest'), [200]);
  await call('ClustersAPI.removeCustomManifest', () => ClustersAPI.removeCustomManifest(id, 'openshift', 'uilib-2.yaml'),
    M.none, [200]);

  // Add hosts: the discovery ISO
  const infraEnv = await call('InfraEnvsAPI.register', () => InfraEnvsAPI.register({
    name: 'uilib_infra-env', pullSecret: PULL_SECRET, clusterId: id, openshiftVersion: version,
    cpuArchitecture: arch, sshAuthorizedKey: SSH_KEY, imageType: 'full-iso',
  }), ref('InfraEnv'), [201]);
  if (!infraEnv || !infraEnv.id) {
    throw new Error('InfraEnvsAPI.register gave no infra-env');
  }
  const ie = infraEnv.id;
  await call('InfraEnvsAPI.list', () => InfraEnvsAPI.list(id), ref('InfraEnvList'), [200]);
  await call('InfraEnvsAPI.get', () => InfraEnvsAPI.get(ie), ref('InfraEnv'), [200]);
  await call('InfraEnvsAPI.update', () => InfraEnvsAPI.update(ie, { imageType: 'minimal-iso' }), ref('InfraEnv'), [201]);
  await call('InfraEnvsAPI.getImageUrl', () => InfraEnvsAPI.getImageUrl(ie), ref('PresignedUrl'), [200]);
  const ipxe = await call('InfraEnvsAPI.getIpxeImageUrl', () => InfraEnvsAPI.getIpxeImageUrl(ie), ref('PresignedUrl'),
    [200]);
  await browserGet('browser GET presigned ipxe-script', ipxe);

  // The hosts boot the image
  console.log(JSON.stringify({ agents: { infraEnv: ie, cluster: id, hosts: HOSTS } }));
  const hosts = await until(`${HOSTS} hosts in the infra-env`, 1000, async () => {
    const list = await call('HostsAPI.list', () => HostsAPI.list(ie), ref('HostList'), [200]);
    return list && list.length >= HOSTS ? list : null;
  });
  await call('InfraEnvsAPI.getHosts', () => InfraEnvsAPI.getHosts(ie), ref('HostList'), [200]);
  let n = 0;
  for (const h of hosts) {
    await call('HostsAPI.get', () => HostsAPI.get(ie, h.id), ref('Host'), [200]);
    n += 1;
    await call('HostsAPI.update', () => HostsAPI.update(ie, h.id, { hostRole: 'master', hostName: `uilib-master-${n}` }),
      ref('Host'), [201]);
  }
  await call('client GET /v2/clusters/{id}/supported-platforms',
    () => axiosClient.client.get(`/v2/clusters/${id}/supported-platforms`), arrayOf('PlatformType'), [200]);
  await until('the cluster ready', 1000, async () => {
    const c = await call('ClustersAPI.get', () => ClustersAPI.get(id), ref('Cluster'), [200]);
    return c && c.status === 'ready';
  });
  await call('EventsAPI.list', () => EventsAPI.list({ clusterId: id }), ref('EventList'), [200]);

  // Install, and follow it as the cluster page does
  await call('ClustersAPI.install', () => ClustersAPI.install(id), ref('Cluster'), [202]);
  const final = await until('the installation to end', 1500, async () => {
    const c = await call('ClustersAPI.get', () => ClustersAPI.get(id), ref('Cluster'), [200]);
    await call('HostsAPI.list', () => HostsAPI.list(ie), ref('HostList'), [200]);
    return c && ['installed', 'error', 'cancelled'].includes(c.status) ? c : null;
  });
  console.log(JSON.stringify({ installed: { cluster: id, status: final.status, statusInfo: final.statusInfo } }));

  // The installed cluster's page: credentials, kubeconfig, logs, events, operators
  await call('ClustersAPI.getCredentials', () => ClustersAPI.getCredentials(id), ref('Credentials'), [200]);
  const kubeconfigUrl = await call('ClustersAPI.getPresignedForClusterCredentials',
    () => ClustersAPI.getPresignedForClusterCredentials({ clusterId: id, fileName: 'kubeconfig' }),
    ref('PresignedUrl'), [200]);
  await browserGet('browser GET presigned kubeconfig', kubeconfigUrl);
  await call('ClustersAPI.downloadClusterCredentials', () => ClustersAPI.downloadClusterCredentials(id, 'kubeconfig'),
    M.text, [200]);
  // the controller's logs are uploaded once the cluster is installed; the OCM UI's download button presigns them
  const logsUrl = await until('the logs presigned', 1000, () => call('ClustersAPI.getPresignedForClusterFiles',
    () => ClustersAPI.getPresignedForClusterFiles({ clusterId: id, fileName: 'logs', logsType: 'all' }),
    ref('PresignedUrl'), [200], [404]));
  await browserGet('browser GET presigned logs', logsUrl);
  await call('ClustersAPI.downloadLogs', () => ClustersAPI.downloadLogs(id), M.text, [200]);
  await call('EventsAPI.list', () => EventsAPI.list({ clusterId: id, limit: 50 }), ref('EventList'), [200]);
  await call('EventsAPI.list', () => EventsAPI.list({
    clusterId: id, hostIds: hosts.map((h) => h.id), severities: ['info', 'warning'], clusterLevel: true,
    deletedHosts: true, message: 'install', limit: 20, offset: 0,
  }), ref('EventList'), [200]);
  await call('EventsAPI.list', () => EventsAPI.list({ infraEnvId: ie }), ref('EventList'), [200]);
  await call('client GET /v2/clusters/{id}/monitored-operators',
    () => axiosClient.client.get(`/v2/clusters/${id}/monitored-operators`), ref('MonitoredOperatorsList'), [200]);
  await call('ClustersAPI.list', () => ClustersAPI.list(), ref('ClusterList'), [200]);

  // Day 2: the installed cluster takes more hosts; the same cluster imported by its OpenShift id
  await call('ClustersAPI.allowAddHosts', () => ClustersAPI.allowAddHosts(id), ref('Cluster'), [202]);
  const imported = await call('ClustersAPI.registerAddHosts', () => ClustersAPI.registerAddHosts({
    name: 'uilib-day2', apiVipDnsname: 'api.uilib.example.com', openshiftVersion: version,
    openshiftClusterId: final.openshiftClusterId || '5a9c4a56-2b3b-4d5f-8a6e-5c1f0c9d2e7a',
  }), ref('Cluster'), [201]);
  await call('ClustersAPI.listByOpenshiftId', () => ClustersAPI.listByOpenshiftId(final.openshiftClusterId),
    ref('ClusterList'), [200]);

  // Throw-away objects: a disconnected cluster, an unbound infra-env, both deleted
  const offline = await call('ClustersAPI.registerDisconnected',
    () => ClustersAPI.registerDisconnected({ name: 'uilib-offline', openshiftVersion: version }), ref('Cluster'), [201]);
  const loose = await call('InfraEnvsAPI.register', () => InfraEnvsAPI.register({
    name: 'uilib-loose', pullSecret: PULL_SECRET, openshiftVersion: version, cpuArchitecture: arch,
  }), ref('InfraEnv'), [201]);
  if (loose) {
    await call('InfraEnvsAPI.deregister', () => InfraEnvsAPI.deregister(loose.id), M.none, [204]);
  }
  for (const c of [offline, imported]) {
    if (c) {
      await call('ClustersAPI.deregister', () => ClustersAPI.deregister(c.id), M.none, [204]);
    }
  }
  return { cluster: id, infraEnv: ie, finalStatus: final.status };
}

/**
 * Ids of the enum the answer has no key for: a note. Upstream answers every id; the UI reads a missing one as
 * supported (its isFeatureSupportedAndAvailable(undefined) is true).
 */
function noteMissingKeys(op, map, enumName) {
  if (!map) {
    return;
  }
  const missing = (schemas.open[enumName].enum || []).filter((k) => !(k in map));
  if (missing.length) {
    notes.set(`${op}: no key for ${missing.join(', ')}`, 1);
  }
}

flow().then((result) => {
  const list = (m) => [...m.entries()].map(([k, count]) => (count > 1 ? `${k} (x${count})` : k));
  const summary = {
    ...result,
    calls: calls.length,
    operations: [...operations].sort(),
    violations: list(violations),
    unexpected,
    notes: list(notes),
  };
  console.log(JSON.stringify({ summary }));
  process.exit(violations.size || unexpected.length ? 1 : 0);
}).catch((e) => {
  console.log(JSON.stringify({ summary: { error: String(e && e.stack || e), calls: calls.length,
    operations: [...operations].sort(), violations: [...violations.keys()], unexpected, notes: [...notes.keys()] } }));
  process.exit(1);
});
