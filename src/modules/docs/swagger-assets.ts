// Swagger UI's files, embedded in the compiled binary (Bun's file imports) and served locally so
// that the docs work air-gapped.
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };
import css from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };
import favicon16 from 'swagger-ui-dist/favicon-16x16.png' with { type: 'file' };
import favicon32 from 'swagger-ui-dist/favicon-32x32.png' with { type: 'file' };
import init from './swagger-init.js' with { type: 'file' };

// A Map, so that a file named `constructor` or `__proto__` is just not found.
export const SWAGGER_ASSETS = new Map<string, { path: string; type: string }>([
  ['swagger-ui-bundle.js', { path: bundle, type: 'text/javascript; charset=utf-8' }],
  ['swagger-ui.css', { path: css, type: 'text/css; charset=utf-8' }],
  ['swagger-init.js', { path: init, type: 'text/javascript; charset=utf-8' }],
  ['favicon-16x16.png', { path: favicon16, type: 'image/png' }],
  ['favicon-32x32.png', { path: favicon32, type: 'image/png' }],
]);

/** The icons, also where Swagger UI's own page has them (next to it): browsers and bookmarks ask there. */
export const SWAGGER_ICONS = ['favicon-16x16.png', 'favicon-32x32.png'];
