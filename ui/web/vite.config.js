import { defineConfig } from 'vite';

// The library reads a few settings from process.env at run time (upstream's app defines them at build time);
// ours are fixed: the version comes from the server (env.js), no OCM permissions, no translation namespace.
export default defineConfig({
  define: {
    'process.env': JSON.stringify({ AIUI_APP_VERSION: process.env.RDV_UI_VERSION || 'rendezvous' }),
  },
  build: {
    outDir: process.env.RDV_UI_OUT || 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 4096,
  },
});
