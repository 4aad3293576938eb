// Files imported `with { type: 'file' }` are paths (inside the compiled binary: /$bunfs/…).
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string;
  export default path;
}
declare module '*/swagger-init.js' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/*.png' {
  const path: string;
  export default path;
}
