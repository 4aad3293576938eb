// Swagger UI's files, embedded in the compiled binary (Bun's file imports) and served locally so
// that the docs work air-gapped.
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };
import css from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };
import init from './swagger-init.js' with { type: 'file' };

// A Map, so that a file named `constructor` or `__proto__` is just not found.
export const SWAGGER_ASSETS = new Map<string, { path: string; type: string }>([
  ['swagger-ui-bundle.js', { path: bundle, type: 'text/javascript; charset=utf-8' }],
  ['swagger-ui.css', { path: css, type: 'text/css; charset=utf-8' }],
  ['swagger-init.js', { path: init, type: 'text/javascript; charset=utf-8' }],
]);
