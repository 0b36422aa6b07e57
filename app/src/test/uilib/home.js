'use strict';
// Where install.js puts the pinned packages and flow.js finds them: $RDV_UILIB_DIR, else
// ~/.cache/rendezvous/uilib-<ui-lib version>-<hash of package.json and package-lock.json>. Outside the checkout so
// that `mvn clean` and a fresh clone on the same machine do not download them again; named by the pins so that a
// change of pins installs anew instead of using stale packages.
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');

const COMPLETE = '.rendezvous-complete';

function dir() {
  if (process.env.RDV_UILIB_DIR) {
    return path.resolve(process.env.RDV_UILIB_DIR);
  }
  const h = crypto.createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) {
    h.update(fs.readFileSync(path.join(__dirname, f)));
  }
  const version = require('./package.json').packedAlone['@openshift-assisted/ui-lib'].version;
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'rendezvous', `uilib-${version}-${h.digest('hex').slice(0, 12)}`);
}

/** The installed directory, or an Error saying how to install it. */
function installed() {
  const d = dir();
  if (!fs.existsSync(path.join(d, COMPLETE))) {
    throw new Error(`the ui-lib packages are not installed in ${d}: run scripts/install-test-tools `
      + `(or node ${path.join(__dirname, 'install.js')})`);
  }
  return d;
}

module.exports = { dir, installed, COMPLETE };
