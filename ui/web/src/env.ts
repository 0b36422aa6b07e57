// What the server says about itself in /env.js (see UiRoutes on the Java side).
type ServerEnv = { auth: 'token' | 'none'; version: string };

declare global {
  interface Window {
    __RDV__?: ServerEnv;
  }
}

export const serverEnv: ServerEnv = window.__RDV__ ?? { auth: 'token', version: 'unknown' };
