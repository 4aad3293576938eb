import pkg from '../package.json' with { type: 'json' };

/** Set by `npm run build` through `--define`; "dev" when running from source. */
declare const ISLET_COMMIT: string | undefined;

export const VERSION: string = pkg.version;
export const COMMIT: string = typeof ISLET_COMMIT === 'string' ? ISLET_COMMIT : 'dev';
