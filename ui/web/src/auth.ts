import * as OCM from '@openshift-assisted/ui-lib/ocm';
import { serverEnv } from './env';

// The API token lives for the browser session (sessionStorage), under the key the fleet page uses too, so one
// login serves both. A #token=... fragment in the address (as the fleet page takes one) is taken and removed.
const KEY = 'rdv-token';
const listeners = new Set<() => void>();

const fromFragment = new URLSearchParams(window.location.hash.slice(1)).get('token');
if (fromFragment) {
  sessionStorage.setItem(KEY, fromFragment);
  history.replaceState(null, '', window.location.pathname + window.location.search);
}

export const authRequired = serverEnv.auth !== 'none';
export const getToken = (): string | null => sessionStorage.getItem(KEY);
export const onTokenChange = (f: () => void) => {
  listeners.add(f);
  return () => listeners.delete(f);
};
export const setToken = (token: string | null) => {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  listeners.forEach((f) => f());
};

// Every call of the library goes through these two axios instances: add the bearer token, and on a 401 drop it,
// which brings the token page back instead of a page of failed requests.
for (const client of [OCM.Api.client, OCM.Api.clientWithoutCaseConverter]) {
  client.interceptors.request.use((cfg) => {
    const token = getToken();
    if (authRequired && token) {
      cfg.headers = { ...cfg.headers, Authorization: `Bearer ${token}` };
    }
    return cfg;
  });
  client.interceptors.response.use(undefined, (error) => {
    if (authRequired && error?.response?.status === 401 && getToken()) {
      setToken(null);
    }
    return Promise.reject(error);
  });
}

/** Checks a token with a cheap authenticated call; resolves to an error message or null. */
export const checkToken = async (token: string): Promise<string | null> => {
  const r = await fetch('/api/assisted-install/v2/openshift-versions?only_latest=true', {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (r.ok) return null;
  if (r.status === 401) return 'This token was refused.';
  return `The service answered ${r.status}; try again.`;
};
