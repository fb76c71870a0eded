import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The controller serves dist/ from the jar's static/ at '/'; `npm run dev` (and `vite preview`)
// proxy the API to GANTRY_URL, default a controller on :8080.
const target = process.env.GANTRY_URL ?? 'http://127.0.0.1:8080';
export default defineConfig({
  plugins: [react()],
  base: './',
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': target, '/v3': target } },
  // Tests run in Node; a file that renders or reads the DOM starts with `// @vitest-environment jsdom`
  // (jsdom's set-up was half of the whole run's time when every file had it).
  test: { environment: 'node', include: ['src/**/*.test.{ts,tsx}'] },
});
