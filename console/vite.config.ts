import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The gateway serves dist/ at / (src/http/console-static.ts); `npm run dev -w console` proxies the API to it.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: false, manifest: true, chunkSizeWarningLimit: 600 },
  server: {
    proxy: Object.fromEntries(
      ['/api-account', '/v1', '/rankings', '/billing', '/openapi.json'].map((prefix) => [
        prefix,
        process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080',
      ]),
    ),
  },
});
