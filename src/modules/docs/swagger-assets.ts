// Swagger UI's files, embedded in the compiled binary (Bun's file imports) and served locally so
// that the docs work air-gapped.
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };
import css from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };

export const SWAGGER_ASSETS: Record<string, { path: string; type: string }> = {
  'swagger-ui-bundle.js': { path: bundle, type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { path: css, type: 'text/css; charset=utf-8' },
};
