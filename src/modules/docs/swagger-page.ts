/** The Swagger UI page: Swagger UI's bundle and style, then our start-up script, all from `assets`. */
export function swaggerPage(assets: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Islet API</title>
  <link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32" />
  <link rel="icon" type="image/png" href="${assets}/favicon-16x16.png" sizes="16x16" />
  <link rel="stylesheet" href="${assets}/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assets}/swagger-ui-bundle.js"></script>
  <script src="${assets}/swagger-init.js"></script>
</body>
</html>
`;
}
