import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The controller serves dist/ from the jar's static/ at '/'; `npm run dev` proxies the API.
export default defineConfig({
  plugins: [react()],
  base: './',
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/v3': 'http://127.0.0.1:8080' } },
  test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'] },
});
